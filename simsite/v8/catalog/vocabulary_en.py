"""English word lists for the ShopSimulator v8 catalog generator (written for this project).

The same rules as :mod:`vocabulary`: tuples only, and no ASCII digits in anything a task may
quote (features, ``with`` phrases, first-axis values, attribute values that are used as targets).
English features come in two kinds because a request has to read naturally: ``feats`` go before the
noun ("a foldable storage bin"), ``withs`` after "with" ("with locking lids").
"""

from __future__ import annotations

from shopsim.simsite.v8.catalog.vocabulary import Group, V8Type, kv, split

__all__ = ["ACRONYMS", "BRAND_HEADS", "BRAND_TAILS", "GROUPS", "SHOP_FORMS", "TYPES"]


def _en(group: str, path: str, noun: str, unit: str, feats: str, withs: str, attrs: str, axes: str,
        price: tuple[float, float], alts: str = "", scenes: str = "") -> V8Type:
    return V8Type("en", group, tuple(path.split(">")), noun, unit, split(feats), split(withs), kv(attrs), kv(axes),
                  price, split(alts), split(scenes))


TYPES: tuple[V8Type, ...] = (
    _en("kitchen", "Home & Kitchen>Small Appliances>Electric Kettles", "electric kettle", "",
        "cordless|gooseneck|temperature control|boil-dry protected|quick boil",
        "keep warm function|auto shut-off|LED indicator",
        "Material:Stainless Steel|Borosilicate Glass|Ceramic;Capacity:1.7 Liters|1.2 Liters;Wattage:1500W",
        "Style:Classic|Gooseneck|Smart Temp;Color:Matte Black|Matte White|Sage Green", (19, 89),
        "tea kettle|water boiler", "home kitchen|office|dorm room"),
    _en("kitchen", "Home & Kitchen>Small Appliances>Air Fryers", "air fryer", "",
        "nonstick|compact|digital|dishwasher-safe|oil-free|quiet",
        "viewing window|dual baskets|preset programs",
        "Capacity:4 Quart|6 Quart|8 Quart;Basket Coating:Ceramic Nonstick|PTFE-free Nonstick;Control:Touch Screen|Dial",
        "Size:Compact|Family|Extra Large;Color:Black|White|Grey", (49, 199), "convection fryer", "small kitchen|family meals"),
    _en("kitchen", "Home & Kitchen>Small Appliances>Blenders", "blender", "",
        "high-speed|portable|personal|quiet|self-cleaning",
        "travel cups|tamper|pulse mode",
        "Jar Material:Tritan|Glass;Motor:1200 Watts|900 Watts;Speeds:Variable",
        "Bundle:Blender Only|With Travel Cups|Pro Bundle;Color:Black|Red|Silver", (29, 249), "smoothie maker",
        "smoothies|protein shakes"),
    _en("kitchen", "Home & Kitchen>Kitchen Utensils>Kitchen Knives", "chef knife", "",
        "razor-sharp|full tang|forged|ergonomic|rust-resistant",
        "knife sheath|gift box|finger guard",
        "Blade Material:High Carbon Stainless Steel|Damascus Steel;Blade Length:8 Inch;Handle Material:Pakkawood|Olive Wood",
        "Set:Single Knife|Three-Piece Set|Block Set;Handle Color:Black|Wood Brown", (19, 179), "cooking knife",
        "home cooks|professional kitchens"),
    _en("kitchen", "Home & Kitchen>Cookware>Skillets", "skillet", "",
        "pre-seasoned|oven-safe|induction-compatible|heavy-duty",
        "helper handle|pour spouts|silicone handle cover",
        "Material:Cast Iron|Enameled Cast Iron;Diameter:10 Inch|12 Inch",
        "Size:Small|Medium|Large;Lid:With Lid|Without Lid", (19, 129), "frying pan|cast iron pan", "stovetop|campfire"),
    _en("kitchen", "Home & Kitchen>Kitchen Storage>Food Containers", "food storage container", "set of",
        "airtight|leak-proof|microwave-safe|stackable|freezer-safe",
        "locking lids|snap lids|steam vents",
        "Material:Borosilicate Glass|Plastic;Pieces:10 Piece|24 Piece",
        "Set Size:Small Set|Medium Set|Large Set;Lid Color:Grey|Blue|Green", (15, 79), "meal prep container",
        "meal prep|leftovers"),
    _en("kitchen", "Home & Kitchen>Drinkware>Tumblers", "insulated tumbler", "",
        "leak-proof|spill-proof|vacuum insulated|dishwasher-safe|cupholder-friendly",
        "straw|handle|sliding lid",
        "Material:Stainless Steel|Ceramic-Lined Steel;Capacity:30 Ounce|40 Ounce",
        "Size:Regular|Large|Extra Large;Color:Rose Quartz|Black|Ocean Blue|Cream", (12, 49), "travel mug",
        "commute|gym|office"),
    _en("home", "Home & Kitchen>Bath>Towel Sets", "bath towel", "set of",
        "quick-dry|absorbent|oversized|plush|lightweight",
        "hanging loops|woven border",
        "Material:Turkish Cotton|Egyptian Cotton|Microfiber;GSM:600 GSM|700 GSM",
        "Pack:Two-Piece|Four-Piece|Six-Piece;Color:White|Grey|Navy|Sage", (19, 89), "bath sheet", "bathroom|guest room|gym"),
    _en("home", "Home & Kitchen>Storage & Organization>Storage Bins", "storage bin", "set of",
        "foldable|collapsible|stackable|clear|fabric",
        "handles|lids|label holders",
        "Material:Non-Woven Fabric|Polypropylene|Cotton Rope;Dimensions:13 x 13 x 13 Inches",
        "Size:Small|Medium|Large;Color:Beige|Grey|Black", (12, 59), "storage basket", "closet|shelf|nursery"),
    _en("home", "Home & Kitchen>Lighting>Desk Lamps", "desk lamp", "",
        "dimmable|LED|eye-caring|flicker-free|rechargeable|touch-control",
        "USB charging port|clamp|night light",
        "Material:Aluminum|ABS Plastic;Color Temperature:3000K-6500K;Power Source:Corded|Battery",
        "Style:Basic|Smart|Clamp-On;Color:Black|White|Silver", (15, 89), "reading lamp", "home office|dorm|bedside"),
    _en("home", "Home & Kitchen>Home Decor>Pillow Covers", "throw pillow cover", "set of",
        "linen|velvet|decorative|boho|washable",
        "hidden zipper|tassels",
        "Material:Linen Blend|Velvet|Cotton Canvas;Size:18 x 18 Inches",
        "Pack:Single|Pair|Set of Four;Color:Terracotta|Olive|Cream|Navy", (9, 39), "cushion cover", "sofa|bed|couch"),
    _en("sports", "Sports & Outdoors>Yoga>Yoga Mats", "yoga mat", "",
        "extra-thick|anti-slip|eco-friendly|reversible|lightweight|sweat-resistant",
        "alignment lines|carrying strap",
        "Material:TPE|Natural Rubber|PVC;Thickness:6mm|8mm",
        "Thickness Option:Standard|Thick|Extra Thick;Color:Purple|Teal|Black|Pink", (15, 79), "exercise mat",
        "pilates|home workouts"),
    _en("sports", "Sports & Outdoors>Strength Training>Dumbbells", "adjustable dumbbells", "pair of",
        "rubber-coated|hex|neoprene|quick-adjust|space-saving",
        "storage tray|knurled handles",
        "Material:Cast Iron|Neoprene|Rubber;Max Weight:25 Pounds|52 Pounds",
        "Weight Range:Light Set|Medium Set|Heavy Set;Color:Black|Grey", (25, 299), "hand weights", "home gym|garage gym"),
    _en("sports", "Sports & Outdoors>Fitness Accessories>Resistance Bands", "resistance band", "set of",
        "latex-free|heavy-duty|fabric|non-snap",
        "door anchor|ankle straps|carry bag",
        "Material:Natural Latex|Fabric;Resistance Levels:5 Levels",
        "Set:Basic|Complete|Pro;Color:Multicolor|Black", (9, 49), "workout band", "travel workouts|physical therapy"),
    _en("sports", "Clothing, Shoes & Jewelry>Men>Shoes>Running Shoes", "running shoes", "pair of",
        "lightweight|breathable|cushioned|slip-resistant|wide-toe",
        "mesh upper|memory foam insole",
        "Upper Material:Mesh|Knit;Sole Material:Rubber|EVA",
        "Color:Black White|Navy|Grey Orange|All Black;Size:7|8|9|10|11|12", (39, 149), "sneakers",
        "road running|gym|walking"),
    _en("sports", "Sports & Outdoors>Camping & Hiking>Tents", "camping tent", "",
        "waterproof|instant|pop-up|double-layer|windproof",
        "rainfly|carry bag|mesh windows",
        "Material:Polyester|Nylon|Oxford Fabric;Capacity:2 Person|4 Person|6 Person",
        "Size:Two-Person|Four-Person|Six-Person;Color:Green|Grey|Orange", (39, 299), "dome tent",
        "backpacking|family camping"),
    _en("sports", "Sports & Outdoors>Camping & Hiking>Backpacks", "hiking backpack", "",
        "water-resistant|lightweight|ventilated|packable",
        "rain cover|hydration sleeve|hip belt",
        "Material:Nylon|Ripstop Polyester;Capacity:40L|50L",
        "Capacity Option:Daypack|Midsize|Large;Color:Black|Grey|Orange", (29, 179), "daypack", "day hikes|travel"),
    _en("digital", "Electronics>Accessories>Cables", "USB-C cable", "",
        "braided|fast charging|durable|right-angle|nylon braided",
        "aluminum connectors|cable tie",
        "Connector:USB-C to USB-C|USB-A to USB-C;Length:6 ft|10 ft;Max Power:100W",
        "Length Option:Short|Standard|Extra Long;Color:Black|White|Grey", (6, 29), "charging cable", "phones|laptops|cars"),
    _en("digital", "Electronics>Accessories>Power Banks", "power bank", "",
        "portable|slim|magnetic|wireless|fast charging",
        "built-in cable|LED display|kickstand",
        "Battery Capacity:10000mAh|20000mAh;Output:20W",
        "Style:Standard|Built-in Cable|Magnetic;Color:Black|White|Blue", (19, 79), "portable charger", "travel|commuting"),
    _en("digital", "Electronics>Accessories>Phone Cases", "phone case", "",
        "shockproof|clear|slim|magnetic|rugged",
        "kickstand|card holder|camera cover",
        "Material:Silicone|TPU|Polycarbonate;Drop Protection:10 ft",
        "Style:Basic|Magnetic|Wallet;Color:Clear|Black|Navy|Lavender", (8, 39), "protective case", "everyday|outdoors"),
    _en("digital", "Electronics>Headphones>Earbuds", "wireless earbuds", "pair of",
        "noise-cancelling|waterproof|bluetooth|sport|low-latency",
        "charging case|ear hooks|transparency mode",
        "Connectivity:Bluetooth 5.3;Battery Life:36 Hours|48 Hours;Fit:In-Ear|Open-Ear",
        "Edition:Standard|ANC|Pro;Color:Black|White|Blue", (19, 149), "earphones", "workouts|commuting|calls"),
    _en("digital", "Electronics>Computer Accessories>Keyboards", "mechanical keyboard", "",
        "hot-swappable|wireless|compact|RGB backlit|tenkeyless",
        "red switches|brown switches|PBT keycaps",
        "Switch Type:Red|Brown|Blue;Connectivity:Wired|Tri-Mode;Layout:75%|TKL",
        "Connection:Wired|Wireless|Tri-Mode;Color:Black|White|Grey", (39, 199), "gaming keyboard", "gaming|office|coding"),
    _en("digital", "Electronics>Computer Accessories>Mice", "wireless mouse", "",
        "ergonomic|silent|rechargeable|bluetooth|lightweight",
        "side buttons|USB receiver",
        "Connectivity:Bluetooth|USB Receiver|Dual-Mode;DPI:4000 DPI",
        "Version:Standard|Dual-Mode|Rechargeable;Color:Black|White|Pink", (9, 69), "computer mouse", "laptop|office"),
    _en("clothing", "Clothing, Shoes & Jewelry>Men>Clothing>Hoodies", "hoodie", "",
        "fleece|oversized|pullover|zip-up|heavyweight",
        "kangaroo pocket|drawstring hood",
        "Material:Cotton Blend|Polyester|Organic Cotton;Fit:Relaxed|Regular",
        "Color:Black|Heather Grey|Forest Green|Navy|Oatmeal;Size:Small|Medium|Large|X-Large|XX-Large", (19, 69),
        "sweatshirt", "casual wear|workouts"),
    _en("clothing", "Clothing, Shoes & Jewelry>Women>Clothing>Coats & Jackets", "rain jacket", "",
        "waterproof|packable|breathable|lightweight|windproof",
        "hood|zip pockets|adjustable cuffs",
        "Material:Nylon|Polyester;Lining:Mesh|Unlined",
        "Color:Black|Olive|Coral|Navy;Size:Small|Medium|Large|X-Large", (29, 129), "raincoat", "hiking|travel|commuting"),
)

GROUPS: dict[str, Group] = {
    "kitchen": Group(
        split("Easy to clean and simple to store|Food-grade materials for everyday peace of mind|"
              "Backed by a friendly after-sales team|Compact footprint that saves counter space|"
              "Tested before shipping for consistent quality"),
        split("makes everyday cooking easier|cleans up in seconds|holds up to daily use|saves time on busy mornings|"
              "feels solid in the hand"),
        split("A practical pick for everyday meals.|Makes a thoughtful housewarming gift.|"
              "Designed for small and large kitchens alike.|Ships in protective packaging."),
        split("home cook|meal prepper|coffee lover|new homeowner|healthy eater"),
        split("Official Store|Kitchen|Store|Home Goods")),
    "home": Group(
        split("Clean lines that fit any decor|Carefully stitched for a neat finish|Ready to use out of the box|"
              "Hassle-free returns|Soft colors that suit every room"),
        split("keeps the home tidy|saves space|feels cozy every day|is easy to care for|lasts for years"),
        split("A simple upgrade for any room.|Great for apartments and dorms.|Pairs well with modern decor.|"
              "A welcome gift for a new home."),
        split("organizer|renter|new parent|minimalist|interior lover"),
        split("Home|Official Store|Living|Store")),
    "sports": Group(
        split("Built for frequent training|Comes with a storage bag|Suitable for beginners and pros|"
              "Durable materials that handle the outdoors|Quality checked before shipping"),
        split("keeps you moving|makes workouts more efficient|stands up to the elements|packs down small|"
              "feels stable in use"),
        split("Ready for home workouts and weekend trips.|Made for active people.|Fits easily in a car trunk.|"
              "Suitable for men and women."),
        split("fitness enthusiast|weekend camper|runner|yoga practitioner|outdoor lover"),
        split("Outdoors|Sports|Official Store|Gear")),
    "digital": Group(
        split("Works with most phones, tablets and laptops|Multiple safety protections built in|"
              "Pocket-friendly and light|Worry-free warranty support|Certified for safe charging"),
        split("stays reliable all day|fits any commute|boosts productivity|runs cool under load|feels great to use"),
        split("Great for work, study and play.|Slips easily into a travel bag.|A handy gift for students.|"
              "A quick start guide is included."),
        split("gadget fan|remote worker|student|gamer|commuter"),
        split("Electronics|Tech|Official Store|Direct")),
    "clothing": Group(
        split("Relaxed cut that flatters most builds|Soft fabric that feels good on skin|"
              "Machine washable and resists pilling|True to size|Reinforced seams for long wear"),
        split("stays comfortable all day|pairs with almost anything|works for work and weekends|"
              "keeps its shape|suits every season"),
        split("An easy everyday staple.|Free returns within the return window.|"
              "Colors may vary slightly by screen.|Made for layering."),
        split("casual dresser|minimalist wardrobe|outdoor commuter|value seeker"),
        split("Apparel|Official Store|Clothing Co.|Outfitters")),
}

ACRONYMS = split("USB|USB-C|LED|RGB|PBT|ANC|TPE|TPU|PVC|EVA|ABS|XL|TKL|DPI|GSM")

BRAND_HEADS = split("Kitch|Nord|Verd|Lumi|Aero|Cobal|Brisk|Mav|Zen|Prim|Hale|Tidal|Vela|Quill|Arc|Fern|Solen|Rivo|Cresta|"
                    "Juno|Ember|Alto|Nimbus|Pax")
BRAND_TAILS = split("ora|ix|ly|wise|nest|craft|peak|line|haus|forge|co|works|lab|vibe|mate|ware|ton|field")
SHOP_FORMS = split("{brand} {suffix}|{brand} {suffix}|{brand}|The {brand} Shop")
