"""Category-wide text of the synthetic catalog: weights, title extras, bullets, sentences, reviews and brands.

Every product of a category draws from these, whatever its type; kept apart from the
per-type table (:mod:`product_types`) because they vary by category, not by type.
"""

from __future__ import annotations

from shopsim.simsite.catalog.vocabulary_shapes import CategoryText, split

CATEGORY_TEXT: dict[str, CategoryText] = {
    "beauty": CategoryText(
        0.21, 0.45, split("Clear|White|Pink|Rose Gold|Black"),
        split("Travel Friendly|Daily Care|Made in USA|Self Care Essentials|Beauty Essentials|Perfect Gift|"
               "for Women and Men|Premium Quality"),
        split("gentle enough for everyday use|so you look and feel your best|without harsh chemicals|"
               "for results you can see and feel|a favorite from salons and spas|fitting easily into any routine"),
        split("SATISFACTION GUARANTEED: If you are not happy with your {noun}, reach out and we will make it right. |"
               "CLEAN BEAUTY: Free from parabens, phthalates and artificial dyes. |"
               "WHAT YOU GET: Your new {noun} in a recyclable package, ready to gift. |"
               "Suitable for all ages and skin types; for external use only. |"
               "Formulated and tested by cosmetic chemists in small batches. "),
        split("We formulated our {noun} to keep your routine simple and effective.|"
               "Never tested on animals.|Apply as needed and enjoy a fresh, clean feeling all day.|"
               "Every batch is quality checked before it leaves our lab.|"
               "Store in a cool, dry place away from direct sunlight.|"
               "A thoughtful gift for birthdays, holidays or just because."),
        split("my skin has never felt better|the scent is light and pleasant|a little goes a long way|"
               "it lasts much longer than the one i used before|my daughter loves it too"),
        split("it irritated my skin|the smell is too strong for me|the bottle leaked in shipping|"
               "i did not see any difference after a month")),
    "grocery": CategoryText(
        0.19, 0.5, (),
        split("Family Size|Pantry Staple|Value Pack|Great for Gifting|Bulk Pack|Fresh Taste|Kitchen Essentials|"
               "Premium Quality"),
        split("so you can snack without the guilt|for a taste the whole family will love|"
               "with nothing artificial added|packed fresh to lock in flavor|perfect for pantry stocking"),
        split("SHELF STABLE: Store in a cool, dry place and enjoy for months. |"
               "FRESHNESS SEALED: Packed in resealable bags to keep every serving fresh. |"
               "FAMILY OWNED: Made by a family business that has been cooking since 1978. |"
               "Great for lunch boxes, office snacks and road trips. |"
               "Produced in a facility that also handles tree nuts, milk and soy. "),
        split("At {Brand} we make our {noun} from simple ingredients you can pronounce.|"
               "Enjoy it on its own or add it to your favorite recipes.|"
               "Each batch is prepared in small quantities for consistent taste.|"
               "Please check the label for allergen information.|"
               "Our sourcing partners follow fair labor and sustainable farming practices."),
        split("it tastes amazing|my kids ask for it every day|it arrived fresh and well packaged|"
               "the flavor is great without being too sweet|we always keep a few in the pantry"),
        split("it arrived stale|it is way too salty for my taste|the box was crushed|"
               "the flavor was bland and a bit artificial")),
    "fashion": CategoryText(
        0.21, 0.8, split("Black|White|Navy|Heather Grey|Olive|Burgundy|Khaki|Blue"),
        split("Casual Fashion|Classic Style|All Season|Lightweight Comfort|Vintage Style|Everyday Essentials|"
               "Perfect Gift|Premium Quality"),
        split("so you stay comfortable all day long|keeping its shape wash after wash|"
               "for an easy, put-together look|pairing with almost anything in your closet|"
               "without sacrificing style"),
        split("SIZE GUIDE: Please check the size chart in the images before ordering; fits true to size. |"
               "CARE INSTRUCTIONS: Machine wash cold with like colors, tumble dry low. |"
               "EASY RETURNS: Not the right fit? Exchange it within 30 days. |"
               "Imported; pull on closure. |"
               "Perfect for vacation, weekends, travel, date night or everyday errands. "),
        split("We cut our {noun} from soft, durable fabric for a flattering fit.|"
               "Dress it up or down for work, weekends and everything in between.|"
               "Designed in California and tested for comfort by real people.|"
               "Colors may vary slightly due to lighting and screen settings.|"
               "A wardrobe staple you will reach for again and again."),
        split("it fits perfectly|the material is soft and thick|i get compliments every time i wear it|"
               "it is true to size and very comfortable|i bought a second color right away"),
        split("it runs small, so order a size up|the color faded after one wash|the stitching came loose|"
               "it looks cheaper than in the pictures")),
    "garden": CategoryText(
        0.2, 0.5, split("White|Grey|Beige|Black|Natural|Walnut|Sage Green|Cream"),
        split("Modern Home Decor|Housewarming Gift|Easy to Clean|Home Essentials|Durable Construction|Classic Design|"
               "Perfect Gift|Premium Quality"),
        split("so your home looks pulled together|built to hold up to daily family life|"
               "with a look that suits any decor|built to last for years|for a cozy, inviting space"),
        split("EASY SETUP: All hardware and clear instructions included; assembles in about 20 minutes. |"
               "WARRANTY: Backed by a 1 year limited warranty and responsive customer service. |"
               "PACKAGE INCLUDES: {noun}, hardware kit and instruction manual. |"
               "Please measure your space before ordering; dimensions are listed in the images. |"
               "Wipe clean with a damp cloth; avoid harsh cleaners. "),
        split("Give any room a clean, modern look with {Brand} {noun}.|"
               "Built from carefully selected materials and finished by hand.|"
               "Arrives well packed with everything needed for setup.|"
               "Slight variations in color and texture make each piece unique.|"
               "Pairs beautifully with our matching home collection."),
        split("it looks even better in person|it was sturdy and easy to put together|it is exactly the color i wanted|"
               "it really completes the room|the quality is great for the price"),
        split("it arrived with a scratch|the color is darker than shown|it wobbles a bit|"
               "one of the screws was missing")),
    "electronics": CategoryText(
        0.19, 0.45, split("Black|White|Space Gray|Silver|Blue"),
        split("Travel Essentials|Gift for Dad|Durable Design|Latest Model|Home and Office|Upgraded Version|"
               "Perfect Gift|Premium Quality"),
        split("so you stay connected wherever you go|for reliable everyday performance|"
               "without any complicated setup|keeping up with work and play|built to handle daily use"),
        split("WIDE COMPATIBILITY: Works with most laptops, tablets, phones and smart TVs. |"
               "WHAT YOU GET: {noun}, user manual and friendly 24 hour customer service. |"
               "WORRY FREE WARRANTY: 18 month warranty; contact us any time for help. |"
               "Certified for safety with overcharge and short circuit protection. |"
               "Compact and lightweight, easy to toss in a backpack or carry on. "),
        split("{Brand} designed the {noun} to combine solid performance with a clean, compact design.|"
               "Setup takes just minutes, no extra software required.|"
               "Every unit is tested before shipping.|"
               "Please update your device to the latest firmware for best results.|"
               "A practical gift for students, gamers and busy professionals."),
        split("it works exactly as advertised|setup took two minutes|it has held up perfectly so far|"
               "the build quality is excellent|it is better than the name brand one i had"),
        split("it stopped working after two weeks|the connection keeps dropping|the instructions were useless|"
               "it gets hot after a while")),
}

BRANDS: dict[str, tuple[str, ...]] = {
    "beauty": split("Luvora|Petal & Pine|Aurelle|Dewbloom|Skinsera|Velmora|Calista Botanics|Nuvelle|Maison Lys|"
                     "Honeyhaze|Purelume|Olive & Ash|Sorelle|Glowetta|Bellaroot|Evergleam|Mirabé|Saltwater Rose"),
    "grocery": split("Harvest Lane|Maple Hollow|Good Acre|Fieldstone Farms|Copper Kettle|Sunny Fork|Wildgrain|"
                      "Nutwell|Brightbean|Peak Pantry|Old Mill Road|Cedar Creek Co.|Tasty Ridge|Honest Hive|"
                      "Blue Mesa|Little Orchard"),
    "fashion": split("Northwind|Urban Thread|Coastline Apparel|Kestrel|Ivy & Oak|Redfern|Solstice Wear|Alder & Co.|"
                      "Trailblaze|Marlowe|Ember Lane|Fitfour|Velvetta|Stonebridge|Cove Street|Jadeline"),
    "garden": split("Homewise|Oakhaven|Nestora|Linen & Loom|Hearthside|Greenpatch|Casa Verde|Willowmere|Plumhouse|"
                     "Timberline Home|Softnest|Larkspur Living|Gardenia Lane|Boxwood & Co.|Terrabloom|Driftwood Bay"),
    "electronics": split("Voltaro|Zentrix|Nexlink|Auralux|Pixelwave|Corvox|Tekmate|Brightcore|Sonique|Kinetiq|"
                          "Ampora|Quantix|Lumetra|Ohmwave|Vireo Tech|Gridbyte"),
}
BRAND_HEADS = split("Ver|Lum|Nor|Cal|Bel|Zen|Mar|Sol|Ori|Kai|Tra|Ven|Ala|Rho|Ome|Lux|Cor|Eli|Fen|Hal")
BRAND_TAILS = split("ora|ix|ly|ant|ex|wood|field|ava|ico|una|ara|on|eta|ique|well|co")
