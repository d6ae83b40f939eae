"""Product types of the synthetic catalog: each WebShop ``query`` with its category path, nouns and attributes.

The largest table, so it has a module of its own; types are grouped by category, in the
order of ``CATEGORIES``, and each names its option pools (:mod:`option_pools`) by key.
"""

from __future__ import annotations

from shopsim.simsite.catalog.vocabulary_shapes import SEP, ProductType, split


def _t(category: str, query: str, path: str, nouns: str, one_many: str, adj: str, for_: str, with_: str,
       axes: str, price: tuple[float, float], sizes: str = "") -> ProductType:
    """Build a ProductType from compact ``|``-separated strings; a path level ``{a|b}`` is the optional leaf."""
    base, _, leaves = path.partition(" {")
    one, _, many = one_many.partition("/")
    return ProductType(category, query, base.replace(" > ", SEP), split(leaves.rstrip("}")), split(nouns),
                       one, many, split(adj), split(for_), split(with_), tuple(axes.split()), price,
                       split(sizes))


_BPC = "Beauty & Personal Care"
_GGF = "Grocery & Gourmet Food"
_CSJ = "Clothing, Shoes & Jewelry"
_HK = "Home & Kitchen"

TYPES: tuple[ProductType, ...] = (
    # ---- beauty
    _t("beauty", "shampoo & conditioner", f"{_BPC} > Hair Care > Shampoo & Conditioner {{Shampoos|Conditioners|"
       "Shampoo & Conditioner Sets}", "Shampoo|Moisturizing Shampoo|Conditioner|Shampoo and Conditioner Set|"
       "Clarifying Shampoo", "shampoo/shampoos", "sulfate free|paraben free|cruelty free|color safe",
       "dry hair|damaged hair|curly hair|hair growth", "argan oil|tea tree|coconut oil|biotin",
       "scent beauty_size", (6, 42), "16 Fl Oz|12 Fl Oz|33.8 Fl Oz|8.5 Fl Oz"),
    _t("beauty", "face moisturizers", f"{_BPC} > Skin Care > Face > Creams & Moisturizers {{Face Moisturizers|"
       "Night Creams}", "Face Moisturizer|Night Cream|Daily Face Cream|Gel Moisturizer|Hydrating Cream",
       "face cream/face moisturizers", "fragrance free|oil free|non comedogenic|anti aging",
       "sensitive skin|dry skin|oily skin|fine lines", "hyaluronic acid|vitamin c|natural ingredients|shea butter",
       "beauty_size scent", (8, 64), "1.7 Oz|2 Fl Oz|1 Oz|50 ml"),
    _t("beauty", "lipstick", f"{_BPC} > Makeup > Lips {{Lipstick|Liquid Lipstick}}",
       "Matte Lipstick|Liquid Lipstick|Lip Stain|Satin Lipstick|Lipstick Set", "lipstick/lipsticks",
       "long lasting|cruelty free|highly pigmented|transfer proof", "everyday wear|dry lips",
       "shea butter|vitamin e|jojoba oil", "lip_shade pack_qty", (5, 32), "0.12 Oz|3 Count|6 Pcs"),
    _t("beauty", "nail polish", f"{_BPC} > Foot, Hand & Nail Care > Nail Art & Polish {{Nail Polish|Gel Polish}}",
       "Nail Polish|Gel Nail Polish|Nail Polish Set|Nail Lacquer", "nail polish/nail polishes",
       "quick dry|long lasting|non toxic|chip resistant|vegan friendly", "home manicure|nail art",
       "glossy finish|uv lamp|base coat", "nail_shade pack_qty", (4, 36), "0.5 Fl Oz|6 Colors|15 ml"),
    _t("beauty", "makeup remover", f"{_BPC} > Skin Care > Face > Cleansers {{Makeup Remover}}",
       "Micellar Water|Makeup Remover Wipes|Cleansing Balm|Makeup Remover Pads|Cleansing Oil",
       "makeup remover/makeup removers", "alcohol free|fragrance free|travel size|dermatologist tested",
       "sensitive skin|eye makeup|waterproof mascara", "aloe vera|green tea|rose water",
       "beauty_size pack_qty", (5, 28), "13.5 Fl Oz|60 Count|3.4 Fl Oz"),
    _t("beauty", "hair dryers", f"{_BPC} > Hair Care > Styling Tools & Appliances > Hair Dryers & Accessories "
       "{Hair Dryers}", "Hair Dryer|Ionic Hair Dryer|Blow Dryer|Travel Hair Dryer|Hair Dryer Brush",
       "hair dryer/hair dryers", "fast drying|low noise|lightweight compact",
       "curly hair|fine hair|travel use", "diffuser attachment|negative ions|cool shot|ceramic tourmaline|foldable handle",
       "tech_color", (18, 129), "1875W|1800W"),
    _t("beauty", "toothpaste", f"{_BPC} > Oral Care > Toothpaste", "Whitening Toothpaste|Fluoride Toothpaste|"
       "Kids Toothpaste|Charcoal Toothpaste|Sensitivity Toothpaste", "toothpaste/toothpaste",
       "fluoride free|sls free|enamel safe|peroxide free", "sensitive teeth|fresh breath|teeth whitening",
       "activated charcoal|natural mint|coconut oil", "mint_flavor pack_qty", (3, 24), "4.1 Oz|Pack of 3|6 Oz"),
    _t("beauty", "body wash", f"{_BPC} > Personal Care > Body > Cleansers {{Body Washes|Shower Gels}}",
       "Body Wash|Shower Gel|Moisturizing Body Wash|Exfoliating Body Wash", "body wash/body washes",
       "paraben free|plant based|ph balanced|cruelty free", "dry skin|sensitive skin|men and women",
       "essential oils|shea butter|oatmeal extract", "scent beauty_size", (5, 30), "18 Fl Oz|22 Fl Oz|32 Fl Oz"),
    _t("beauty", "women's fragrance", f"{_BPC} > Fragrance > Women's {{Eau de Parfum|Eau de Toilette|Body Sprays}}",
       "Eau de Parfum|Eau de Toilette Spray|Body Mist|Perfume Gift Set|Roll On Perfume", "perfume/perfumes",
       "long lasting|travel size|alcohol free", "special occasions|everyday wear",
       "floral notes|vanilla musk|citrus notes", "beauty_size scent", (12, 95), "3.4 Fl Oz|1.7 Fl Oz|8 Fl Oz"),
    _t("beauty", "makeup brushes", f"{_BPC} > Tools & Accessories > Makeup Brushes & Tools {{Brush Sets|"
       "Foundation Brushes}", "Makeup Brush Set|Foundation Brush|Kabuki Brush|Eyeshadow Brushes|Blending Sponge Set",
       "makeup brush set/makeup brushes", "cruelty free|easy clean|vegan friendly", "liquid foundation|travel use",
       "synthetic bristles|storage case|wooden handles|dense bristles", "beauty_color pack_qty", (6, 38), "14 Pcs|10 Pcs|5 Pcs"),
    _t("beauty", "sunscreen", f"{_BPC} > Skin Care > Sunscreens & Tanning Products {{Sunscreens}}",
       "Sunscreen Lotion|Mineral Sunscreen|Sunscreen Spray|Face Sunscreen SPF 50|Sport Sunscreen",
       "sunscreen/sunscreens", "water resistant|reef safe|broad spectrum|oil free",
       "sensitive skin|outdoor sports|daily use", "zinc oxide|aloe vera|vitamin e", "beauty_size pack_qty",
       (6, 34), "3 Fl Oz|6 Oz|1.7 Fl Oz"),
    # ---- grocery
    _t("grocery", "protein bars", f"{_GGF} > Snack Foods > Bars {{Protein Bars|Nutrition Bars}}",
       "Protein Bars|Keto Protein Bar|Plant Protein Bars|Snack Bars|Whey Protein Bars", "protein bar/protein bars",
       "gluten free|low sugar|non gmo|high protein|plant based|keto friendly", "post workout|on the go",
       "whey protein|real ingredients|almond butter", "protein_flavor food_count", (12, 48), "12 Count|15 Count"),
    _t("grocery", "coffee", f"{_GGF} > Beverages > Coffee, Tea & Cocoa > Coffee {{Ground Coffee|Whole Coffee Beans|"
       "Single-Serve Capsules & Pods}", "Ground Coffee|Whole Bean Coffee|Coffee Pods|Medium Roast Coffee|"
       "Cold Brew Coffee", "/coffee", "fair trade|usda organic|single origin|low acid|small batch",
       "french press|cold brew|drip machines", "chocolate notes|arabica beans", "coffee_flavor food_weight",
       (8, 45), "12 Ounce|2 Pound|32 Ounce"),
    _t("grocery", "tea", f"{_GGF} > Beverages > Coffee, Tea & Cocoa > Tea {{Green|Black|Herbal}}",
       "Green Tea Bags|Herbal Tea|Loose Leaf Black Tea|Chamomile Tea|Matcha Green Tea Powder", "/tea",
       "caffeine free|usda organic|non gmo|individually wrapped", "iced tea|bedtime relaxation",
       "real ginger|natural flavors", "tea_flavor food_count", (5, 30), "100 Count|20 Tea Bags|4 Ounce"),
    _t("grocery", "chips & crisps", f"{_GGF} > Snack Foods > Chips & Crisps {{Potato Chips|Tortilla Chips|"
       "Vegetable Chips}", "Kettle Cooked Potato Chips|Tortilla Chips|Veggie Crisps|Popped Chips|Plantain Chips",
       "bag of chips/chips", "gluten free|non gmo|kettle cooked|low sodium", "school lunches|party snacks",
       "sea salt|avocado oil", "chip_flavor pack_qty", (4, 32), "1 Ounce (Pack of 24)|5 Ounce|8 Ounce Bag"),
    _t("grocery", "nuts & seeds", f"{_GGF} > Snack Foods > Nuts & Seeds {{Mixed Nuts|Almonds|Cashews|Trail Mix}}",
       "Mixed Nuts|Roasted Almonds|Whole Cashews|Trail Mix|Pistachios", "/mixed nuts",
       "dry roasted|lightly salted|high protein|kosher certified|non gmo", "healthy snacking|keto diets",
       "resealable bag|sea salt", "nut_flavor food_weight", (7, 40), "16 Ounce|2 Pound|1.5 Pound"),
    _t("grocery", "chocolate", f"{_GGF} > Candy & Chocolate {{Chocolate Bars|Chocolate Truffles|"
       "Chocolate Assortments}", "Dark Chocolate Bar|Milk Chocolate Truffles|Chocolate Gift Box|"
       "Assorted Chocolates|Chocolate Covered Almonds", "chocolate bar/chocolates",
       "individually wrapped|fair trade|dairy free|gluten free", "gift giving|valentines day",
       "gift box|real cocoa|sea salt", "choc_flavor food_count", (6, 55), "12 Count|3.5 Ounce|24 Pieces"),
    _t("grocery", "hot sauce", f"{_GGF} > Condiments & Salad Dressings > Sauces {{Hot Sauce}}",
       "Hot Sauce|Habanero Hot Sauce|Sriracha Sauce|Chili Garlic Sauce|Hot Sauce Gift Set", "hot sauce/hot sauces",
       "gluten free|sugar free|small batch|all natural", "tacos and wings|grilling season",
       "real habanero|aged peppers", "sauce_flavor pack_qty", (5, 35), "5 Fl Oz|Pack of 3|12 Oz"),
    _t("grocery", "pasta", f"{_GGF} > Pantry Staples > Pasta & Noodles {{Dry Pasta|Gluten-Free Pasta}}",
       "Penne Pasta|Spaghetti|Chickpea Pasta|Whole Wheat Fusilli|Elbow Macaroni", "box of pasta/pasta",
       "gluten free|whole wheat|non gmo|plant based|high fiber", "quick dinners|family meals",
       "durum wheat|red lentils", "pasta_size", (4, 28), "16 Ounce|12 Ounce (Pack of 6)"),
    _t("grocery", "breakfast cereal", f"{_GGF} > Breakfast Foods > Cereals {{Granola|Oatmeal|Cold Cereals}}",
       "Granola|Instant Oatmeal|Breakfast Cereal|Overnight Oats|Muesli", "/granola",
       "whole grain|low sugar|gluten free|non gmo|high fiber", "busy mornings|healthy breakfast",
       "real fruit|ancient grains|rolled oats", "cereal_flavor food_count", (4, 26), "11 Ounce|12 Count|24 Ounce"),
    _t("grocery", "cooking oils", f"{_GGF} > Pantry Staples > Cooking & Baking > Oils, Vinegars & Salad Dressings "
       "{Oils}", "Extra Virgin Olive Oil|Avocado Oil|Coconut Oil|Cooking Spray|Sesame Oil", "bottle of oil/oils",
       "cold pressed|usda organic|non gmo|first harvest", "high heat|salad dressings",
       "glass bottle|pour spout", "liquid_size oil_type", (6, 45), "16.9 Fl Oz|25.3 Fl Oz|1 Liter"),
    _t("grocery", "jerky", f"{_GGF} > Snack Foods > Jerky & Dried Meats {{Beef Jerky|Meat Sticks}}",
       "Beef Jerky|Turkey Jerky|Meat Sticks|Grass Fed Beef Sticks|Jerky Variety Pack", "/beef jerky",
       "high protein|grass fed|gluten free|zero sugar|keto friendly", "road trips|hiking snacks",
       "sea salt|black pepper", "jerky_flavor food_weight", (7, 42), "10 Ounce|2.5 Ounce (Pack of 4)"),
    # ---- fashion
    _t("fashion", "men's t-shirts & tanks", f"{_CSJ} > Men > Clothing > Shirts {{T-Shirts|Tank Tops}}",
       "Crew Neck T-Shirt|Cotton Tee|Graphic T-Shirt|V-Neck T-Shirt|Pocket Tee", "t-shirt/t-shirts",
       "short sleeve|moisture wicking|slim fit|machine washable", "everyday wear|gym workouts",
       "cotton blend|chest pocket|tagless comfort", "apparel_color apparel_size fit", (8, 35), "3 Pack|5 Pack"),
    _t("fashion", "women's dresses", f"{_CSJ} > Women > Clothing > Dresses {{Casual|Cocktail|Club & Night Out|"
       "Wedding Guest}", "Maxi Dress|Wrap Dress|Bodycon Dress|Midi Dress|Floral Sundress", "dress/dresses",
       "short sleeve|long sleeve|high waist|machine washable", "summer beach|wedding guests|cocktail parties",
       "side pockets|smocked waist", "apparel_color apparel_size", (18, 69)),
    _t("fashion", "men's shorts", f"{_CSJ} > Men > Clothing > Shorts {{Cargo|Athletic|Flat Front}}",
       "Cargo Shorts|Athletic Shorts|Chino Shorts|Running Shorts|Board Shorts", "pair of shorts/shorts",
       "elastic waist|quick dry|relaxed fit|stretch fabric", "gym workouts|summer hiking",
       "zipper pockets|drawstring closure", "apparel_color waist_size", (12, 45)),
    _t("fashion", "women's athletic shoes", f"{_CSJ} > Women > Shoes > Athletic {{Running|Walking|Training}}",
       "Running Shoes|Walking Sneakers|Slip On Sneakers|Trail Running Shoes|Tennis Shoes", "pair of sneakers/sneakers",
       "non slip|lightweight breathable|shock absorbing", "everyday walking|gym training",
       "memory foam|arch support|breathable mesh", "shoe_color shoe_size", (25, 95)),
    _t("fashion", "men's boots", f"{_CSJ} > Men > Shoes > Boots {{Work & Safety|Chukka|Hiking}}",
       "Work Boots|Chelsea Boots|Hiking Boots|Chukka Boots|Combat Boots", "pair of boots/boots",
       "water resistant|slip resistant|steel toe|full grain", "construction work|outdoor hiking",
       "rubber sole|padded collar|lace up closure", "shoe_color shoe_size", (39, 159)),
    _t("fashion", "women's coats, jackets & vests", f"{_CSJ} > Women > Clothing > Coats, Jackets & Vests "
       "{Raincoats|Down & Parkas|Denim Jackets|Trench Coats}", "Rain Jacket|Puffer Jacket|Trench Coat|Fleece Jacket|"
       "Quilted Vest", "jacket/jackets", "water resistant|packable lightweight|double breasted|fleece lined",
       "cold weather|outdoor hiking", "detachable hood|zip pockets|faux fur trim", "apparel_color apparel_size",
       (29, 129)),
    _t("fashion", "women's leggings", f"{_CSJ} > Women > Clothing > Active {{Leggings|Yoga Pants}}",
       "High Waisted Leggings|Yoga Pants|Workout Leggings|Capri Leggings|Fleece Lined Leggings",
       "pair of leggings/leggings", "high waist|squat proof|moisture wicking",
       "yoga workouts|everyday wear", "side pockets|four way stretch|tummy control", "apparel_color apparel_size", (12, 48)),
    _t("fashion", "men's socks", f"{_CSJ} > Men > Clothing > Socks {{Athletic Socks|Dress Socks|Casual Socks}}",
       "Athletic Crew Socks|Ankle Socks|Dress Socks|Wool Hiking Socks|No Show Socks", "pair of socks/socks",
       "moisture wicking|breathable cotton|odor resistant", "running sports|work boots",
       "cushioned sole|arch support|reinforced heel", "apparel_color apparel_size sock_pack", (9, 32),
       "6 Pairs|10 Pairs|12 Pack"),
    _t("fashion", "women's necklaces", f"{_CSJ} > Women > Jewelry > Necklaces {{Pendant Necklaces|Chokers|"
       "Chains}", "Pendant Necklace|Layered Necklace|Choker Necklace|Heart Necklace|Initial Necklace",
       "necklace/necklaces", "sterling silver|gold plated|nickel free",
       "birthday gifts|sensitive skin", "gift box|adjustable chain|cubic zirconia|hypoallergenic design", "jewelry_color chain_length",
       (10, 89)),
    _t("fashion", "men's watches", f"{_CSJ} > Men > Watches {{Wrist Watches|Sport Watches}}",
       "Analog Watch|Chronograph Watch|Dress Watch|Digital Sports Watch|Automatic Watch", "watch/watches",
       "water resistant|stainless steel|japanese quartz|scratch resistant", "business casual|outdoor sports",
       "leather strap|date display|luminous hands", "watch_color", (25, 229)),
    _t("fashion", "men's hoodies & sweatshirts", f"{_CSJ} > Men > Clothing > Fashion Hoodies & Sweatshirts",
       "Pullover Hoodie|Zip Up Hoodie|Crewneck Sweatshirt|Fleece Hoodie|Quarter Zip Sweatshirt",
       "hoodie/hoodies", "long sleeve|fleece lined|relaxed fit|machine washable", "cold weather|everyday wear",
       "kangaroo pocket|drawstring hood|ribbed cuffs", "apparel_color apparel_size fit", (19, 65)),
    # ---- garden (home, furniture, patio)
    _t("garden", "decorative pillows", f"{_HK} > Home Décor Products > Home Décor Accents > Decorative Pillows, "
       "Inserts & Covers {Throw Pillow Covers|Throw Pillows}", "Throw Pillow Covers|Decorative Pillow Cases|"
       "Lumbar Pillow Cover|Outdoor Throw Pillows|Velvet Cushion Covers", "throw pillow/throw pillows",
       "machine washable|double sided|farmhouse style|soft velvet", "living room|couch sofa",
       "hidden zipper|insert included", "home_color pillow_size pattern", (9, 45), "Set of 2|Set of 4"),
    _t("garden", "coffee tables", f"{_HK} > Furniture > Living Room Furniture > Tables {{Coffee Tables|"
       "Sofa & Console Tables|End Tables}", "Coffee Table|Lift Top Coffee Table|Round Coffee Table|Console Table|"
       "End Table", "coffee table/coffee tables", "solid wood|mid century|space saving",
       "living room|small spaces", "storage shelf|metal frame|hidden compartment|easy assembly", "wood_color material",
       (59, 389)),
    _t("garden", "mattresses", f"{_HK} > Furniture > Bedroom Furniture > Mattresses & Box Springs {{Mattresses}}",
       "Memory Foam Mattress|Hybrid Mattress|Innerspring Mattress|Mattress in a Box|Cooling Gel Mattress",
       "mattress/mattresses", "medium firm|fiberglass free|motion isolating",
       "back pain|side sleepers", "memory foam|pocket springs|cooling gel|certified foam", "bed_size thickness", (129, 899)),
    _t("garden", "bed sheets", f"{_HK} > Bedding > Sheets & Pillowcases {{Sheet & Pillowcase Sets}}",
       "Bed Sheet Set|Microfiber Sheets|Cotton Sheet Set|Bamboo Sheets|Flannel Sheet Set", "sheet set/bed sheets",
       "deep pocket|machine washable|wrinkle free|breathable cooling", "hot sleepers|all seasons",
       "elastic corners|pillowcases included", "home_color bed_size", (19, 119)),
    _t("garden", "office chairs", f"{_HK} > Furniture > Home Office Furniture > Home Office Chairs {{Desk Chairs}}",
       "Office Chair|Ergonomic Desk Chair|Mesh Office Chair|Gaming Chair|Task Chair", "office chair/office chairs",
       "height adjustable|breathable mesh|heavy duty", "home office|long hours",
       "lumbar support|padded armrests|swivel wheels|easy assembly", "home_color chair_style", (45, 329)),
    _t("garden", "window coverings", f"{_HK} > Home Décor Products > Window Treatments > Curtains & Drapes "
       "{Panels}", "Blackout Curtains|Sheer Curtains|Thermal Insulated Curtains|Linen Curtains|Curtain Panels",
       "curtain panel/curtains", "room darkening|machine washable|thermal insulated|noise reducing",
       "living room|bedroom windows", "grommet top|rod pocket", "home_color curtain_size", (15, 79),
       "2 Panels|52 x 84 Inch"),
    _t("garden", "wall art", f"{_HK} > Home Décor Products > Wall Art {{Canvas Prints|Posters & Prints|"
       "Framed Art}", "Canvas Wall Art|Framed Print|Abstract Wall Decor|Botanical Prints|Landscape Canvas Print",
       "canvas print/wall art", "ready hang|gallery wrapped|fade resistant", "living room|bathroom decor",
       "wood frame|hanging kit", "art_color art_size", (15, 159)),
    _t("garden", "storage baskets", f"{_HK} > Storage & Organization > Baskets, Bins & Containers {{Storage Baskets"
       "|Storage Bins}", "Storage Baskets|Woven Storage Bins|Fabric Storage Cubes|Cotton Rope Basket|Closet Bins",
       "storage basket/storage baskets", "foldable collapsible|easy clean|heavy duty", "closet shelves|nursery toys",
       "carry handles|label holders", "home_color set_size", (12, 49), "Set of 3|Set of 4"),
    _t("garden", "patio furniture", "Patio, Lawn & Garden > Patio Furniture & Accessories > Patio Seating "
       "{Chairs|Conversation Sets|Bistro Sets}", "Patio Chairs|Outdoor Bistro Set|Adirondack Chair|"
       "Patio Conversation Set|Folding Outdoor Chairs", "patio chair/patio furniture",
       "weather resistant|rust proof", "outdoor patio|backyard porch",
       "removable cushions|tempered glass|easy assembly|stackable design", "outdoor_material home_color", (69, 499)),
    _t("garden", "planters", "Patio, Lawn & Garden > Gardening & Lawn Care > Pots, Planters & Container Accessories "
       "{Planters}", "Ceramic Planter|Plant Pots|Hanging Planter|Self Watering Planter|Raised Garden Bed",
       "planter/planters", "self watering|frost resistant|modern minimalist", "indoor plants|succulents and herbs",
       "drainage holes|saucer tray", "home_color planter_size", (9, 79), "Set of 3|6 Inch|8 Inch"),
    _t("garden", "cookware", f"{_HK} > Kitchen & Dining > Cookware > Pots & Pans {{Cookware Sets|Skillets}}",
       "Nonstick Cookware Set|Frying Pan|Stainless Steel Saucepan|Cast Iron Skillet|Pots and Pans Set",
       "frying pan/cookware", "dishwasher safe|oven safe|pfoa free|non stick", "induction cooktops|everyday cooking",
       "glass lids|stay cool handles", "cookware_color cookware_set", (19, 249)),
    # ---- electronics
    _t("electronics", "hdmi cables", "Electronics > Accessories & Supplies > Audio & Video Accessories > Cables "
       "{HDMI Cables}", "HDMI Cable|High Speed HDMI Cable|HDMI 2.1 Cable|Braided HDMI Cord|Right Angle HDMI Cable",
       "hdmi cable/hdmi cables", "high speed|gold plated|4k hdr", "gaming consoles|home theater",
       "braided nylon|ethernet channel", "cable_length pack_count", (6, 29), "6 Feet|10 Feet|2 Pack"),
    _t("electronics", "headphones", "Electronics > Headphones, Earbuds & Accessories > Headphones {Earbud Headphones|"
       "Over-Ear Headphones}", "Wireless Earbuds|Bluetooth Headphones|Over Ear Headphones|"
       "Noise Cancelling Headphones|Sport Earbuds", "pair of headphones/headphones",
       "noise cancelling|sweat resistant|hands free|fast charging", "running workouts|long flights",
       "charging case|built in microphone|deep bass", "tech_color", (19, 199)),
    _t("electronics", "phone cases", "Cell Phones & Accessories > Cases, Holsters & Sleeves {Basic Cases|"
       "Wallet Cases}", "Phone Case|Clear Case|Shockproof Case|Wallet Case|Silicone Case", "phone case/phone cases",
       "slim fit|military grade|anti yellowing", "drop protection|everyday carry",
       "card holder|camera cover|raised edges|wireless charging", "case_color phone_size", (6, 29)),
    _t("electronics", "portable chargers", "Cell Phones & Accessories > Chargers & Power Adapters "
       "{Portable Power Banks}", "Power Bank|Portable Charger|Magnetic Power Bank|Solar Power Bank|Slim Power Bank",
       "power bank/power banks", "fast charging|ultra slim|airline approved", "camping trips|emergency backup",
       "usb c|led display|dual outputs", "battery_capacity tech_color", (15, 79)),
    _t("electronics", "bluetooth speakers", "Electronics > Portable Audio & Video > Portable Speakers & Docks "
       "{Portable Bluetooth Speakers}", "Bluetooth Speaker|Portable Speaker|Waterproof Speaker|Party Speaker|"
       "Mini Speaker", "bluetooth speaker/bluetooth speakers", "water resistant|dust proof|extra loud",
       "outdoor parties|pool parties", "stereo sound|built in microphone|rgb lights|stereo pairing", "tech_color", (19, 169)),
    _t("electronics", "usb flash drives", "Electronics > Computers & Accessories > Data Storage {USB Flash Drives|"
       "Memory Cards}", "USB Flash Drive|Thumb Drive|Memory Stick|USB C Flash Drive|MicroSD Card",
       "flash drive/flash drives", "high speed|usb 3.0|dual connector", "photo backup|data transfer",
       "keychain loop|sliding cap", "flash_capacity pack_count", (5, 59)),
    _t("electronics", "computer mice", "Electronics > Computers & Accessories > Computer Accessories & Peripherals > "
       "Keyboards, Mice & Accessories {Mice}", "Wireless Mouse|Ergonomic Mouse|Gaming Mouse|Bluetooth Mouse|"
       "Vertical Mouse", "mouse/computer mice", "ultra quiet|lightweight wireless",
       "laptop pc|office work|gaming",
       "usb receiver|side buttons|rgb lighting|silent click|adjustable dpi|rechargeable battery", "tech_color mouse_style", (8, 79)),
    _t("electronics", "security cameras", "Electronics > Camera & Photo > Video Surveillance {Surveillance Cameras}",
       "Security Camera|Indoor Camera|Outdoor WiFi Camera|Doorbell Camera|Pan Tilt Camera",
       "security camera/security cameras", "1080p hd|wire free", "home security|baby monitoring",
       "night vision|motion detection|cloud storage|weatherproof design", "camera_style tech_color", (25, 199)),
    _t("electronics", "projectors", "Electronics > Television & Video > Projectors {Video Projectors}",
       "Mini Projector|Portable Projector|Home Theater Projector|4K Projector|Outdoor Movie Projector",
       "projector/projectors", "full hd|native 1080p|low noise", "home theater|outdoor movies",
       "built in speaker|hdmi input|keystone correction", "projector_style tech_color", (59, 499)),
    _t("electronics", "keyboards", "Electronics > Computers & Accessories > Computer Accessories & Peripherals > "
       "Keyboards, Mice & Accessories {Keyboards}", "Mechanical Keyboard|Wireless Keyboard|Compact Keyboard|"
       "Gaming Keyboard|Ergonomic Keyboard", "keyboard/keyboards", "hot swappable|whisper quiet|spill resistant",
       "office work|pc gaming", "wrist rest|rgb backlighting|media keys", "switch_style tech_color", (19, 149)),
    _t("electronics", "smartwatches", "Electronics > Wearable Technology {Smartwatches|Activity & Fitness Trackers}",
       "Smart Watch|Fitness Tracker|Activity Tracker|GPS Running Watch|Kids Smart Watch", "smart watch/smartwatches",
       "water resistant|touch screen", "android phones|fitness tracking",
       "heart rate|sleep tracking|blood oxygen|always on display", "tech_color band_style", (25, 249)),
)
