"""Word lists and templates for the synthetic catalog.

Kept apart from the generator so the generator stays about logic. Every list here is
ordered (tuples), never a set, so that picking from them with a seeded ``random.Random``
gives the same catalog on every machine and Python build.

Attribute phrases are split by how they read in a sentence, because the generator has to
put them into titles, bullets and shopper requests grammatically:

* ``adj``  -- goes before the noun: "sulfate free shampoo"
* ``for_`` -- follows "for": "shampoo for dry hair"
* ``with_`` -- follows "with": "shampoo with argan oil"
"""

from __future__ import annotations

from typing import NamedTuple

SEP = " › "
"""Separator of ``product_category`` levels, as on Amazon and in WebShop's data."""

CATEGORIES: tuple[str, ...] = ("beauty", "grocery", "fashion", "garden", "electronics")


class OptionPool(NamedTuple):
    """Values one option axis can take; ``ordered`` pools are sliced, not sampled."""

    axis: str
    values: tuple[str, ...]
    ordered: bool
    images: bool


class ProductType(NamedTuple):
    """One product type: a WebShop ``query`` with its category path and word lists."""

    category: str
    query: str
    path: str
    leaves: tuple[str, ...]
    nouns: tuple[str, ...]
    one: str
    many: str
    adj: tuple[str, ...]
    for_: tuple[str, ...]
    with_: tuple[str, ...]
    axes: tuple[str, ...]
    price: tuple[float, float]
    sizes: tuple[str, ...]


class CategoryText(NamedTuple):
    """Category-wide text pieces shared by all of its product types."""

    weight: float
    option_rate: float
    colors: tuple[str, ...]
    extras: tuple[str, ...]
    benefits: tuple[str, ...]
    bullets: tuple[str, ...]
    sentences: tuple[str, ...]
    good: tuple[str, ...]
    bad: tuple[str, ...]


def _split(text: str) -> tuple[str, ...]:
    return tuple(s for s in text.split("|") if s)


def _pool(axis: str, values: str, ordered: bool = False, images: bool = False) -> OptionPool:
    return OptionPool(axis, _split(values), ordered, images)


POOLS: dict[str, OptionPool] = {
    # fashion
    "apparel_color": _pool("Color", "Black|White|Navy|Heather Grey|Charcoal|Olive Green|Burgundy|Royal Blue|Khaki|"
                           "Dusty Pink|Black/White|Navy/Red|Grey/Black|Army Green|Light Blue|Red|Mustard Yellow|"
                           "Wine Red|Sage Green|Beige", images=True),
    "apparel_size": _pool("Size", "X-Small|Small|Medium|Large|X-Large|XX-Large|3X-Large", ordered=True),
    "fit": _pool("Fit Type", "Regular|Slim|Big & Tall"),
    "waist_size": _pool("Size", "28|29|30|31|32|33|34|36|38|40|42", ordered=True),
    "shoe_size": _pool("Size", "5|5.5|6|6.5|7|7.5|8|8.5|9|9.5|10|10.5|11|12|13", ordered=True),
    "shoe_color": _pool("Color", "Black|White|Black/White|Grey/Pink|Navy Blue|All Black|Beige|Triple White|Brown|"
                        "Tan|Dark Brown|Wheat", images=True),
    "jewelry_color": _pool("Color", "Gold|Silver|Rose Gold|Gold/Silver|White Gold|Black", images=True),
    "chain_length": _pool("Size", "14 Inch|16 Inch|18 Inch|20 Inch|22 Inch|24 Inch", ordered=True),
    "watch_color": _pool("Color", "Black/Silver|Brown/Gold|Blue Dial|Green Dial|All Black|Silver/White|Two Tone|"
                         "Rose Gold/Blush", images=True),
    "sock_pack": _pool("Item Package Quantity", "3|5|6|8|10|12", ordered=True),
    # beauty
    "scent": _pool("Scent", "Lavender|Unscented|Coconut Vanilla|Eucalyptus Mint|Fresh Citrus|Rose|Sandalwood|"
                   "Cucumber Melon|Tea Tree|Ocean Breeze", images=True),
    "beauty_size": _pool("Size", "1 Fl Oz (Pack of 1)|1.7 Fl Oz|3.4 Fl Oz|8 Fl Oz|12 Fl Oz|16 Fl Oz|"
                         "16 Fl Oz (Pack of 2)|33.8 Fl Oz", ordered=True),
    "lip_shade": _pool("Color", "Ruby Red|Nude Beige|Berry Wine|Coral Crush|Mauve Rose|Classic Red|Pink Petal|"
                       "Brick Brown|Plum/Purple|Toffee", images=True),
    "nail_shade": _pool("Color", "Ballet Pink|Cherry Red|Midnight Black|Pearl White|Lilac|Glitter Gold|Nude/Sheer|"
                        "Teal|Coral|Burgundy Velvet", images=True),
    "beauty_color": _pool("Color", "Black|Rose Gold|Pink/Gold|White/Silver|Marble|Champagne|Lavender", images=True),
    "mint_flavor": _pool("Flavor Name", "Fresh Mint|Spearmint|Cool Mint|Cinnamon|Bubble Gum|Strawberry|"
                         "Charcoal Mint", images=True),
    # grocery
    "pack_qty": _pool("Item Package Quantity", "1|2|3|4|6|12", ordered=True),
    "protein_flavor": _pool("Flavor Name", "Chocolate Peanut Butter|Cookies & Cream|Birthday Cake|Sea Salt Caramel|"
                            "Chocolate Chip Cookie Dough|Mint Chocolate|Lemon Cake|Variety Pack", images=True),
    "coffee_flavor": _pool("Flavor Name", "Breakfast Blend|French Roast|Colombian|Hazelnut|Vanilla Caramel|"
                           "Dark Roast|Medium Roast|Decaf House Blend|Espresso/Dark", images=True),
    "tea_flavor": _pool("Flavor Name", "Jasmine Green|Earl Grey|Chamomile Honey|Peppermint|English Breakfast|"
                        "Lemon Ginger|Hibiscus Berry|Chai Spice", images=True),
    "chip_flavor": _pool("Flavor Name", "Sea Salt|Salt & Vinegar|Barbecue|Jalapeno|Sour Cream & Onion|"
                         "Cheddar/Sour Cream|Original|Variety Pack", images=True),
    "choc_flavor": _pool("Flavor Name", "Dark Chocolate|Milk Chocolate|Sea Salt Caramel|Raspberry|Almond|Mint|"
                         "Assorted|Orange/Dark", images=True),
    "sauce_flavor": _pool("Flavor Name", "Original|Garlic|Chipotle|Habanero|Ghost Pepper|Green Jalapeno|"
                          "Variety Pack", images=True),
    "cereal_flavor": _pool("Flavor Name", "Honey Almond|Maple Pecan|Cinnamon|Dark Chocolate Cherry|"
                           "Blueberry Vanilla|Original|Peanut Butter", images=True),
    "jerky_flavor": _pool("Flavor Name", "Original|Teriyaki|Peppered|Sweet & Spicy|Hickory Smoked|Sriracha|"
                          "Garlic/Pepper", images=True),
    "nut_flavor": _pool("Flavor Name", "Lightly Salted|Unsalted|Honey Roasted|Smoked|Sea Salt & Pepper|"
                        "Cinnamon/Sugar", images=True),
    "food_count": _pool("Size", "4 Count|6 Count|12 Count|12 Count (Pack of 2)|24 Count|36 Count|48 Count",
                        ordered=True),
    "food_weight": _pool("Size", "6 Ounce|8 Ounce|12 Ounce|16 Ounce|1.5 Pound|2 Pound|2 Pound (Pack of 2)|5 Pound",
                         ordered=True),
    "liquid_size": _pool("Size", "8.5 Fl Oz|16.9 Fl Oz|25.3 Fl Oz|33.8 Fl Oz|50.7 Fl Oz|101 Fl Oz", ordered=True),
    "pasta_size": _pool("Size", "8 Ounce (Pack of 12)|12 Ounce (Pack of 6)|16 Ounce (Pack of 4)|"
                        "16 Ounce (Pack of 8)|2 Pound (Pack of 6)", ordered=True),
    "oil_type": _pool("Style", "Extra Virgin|Pure|Light Tasting|Organic/Extra Virgin", images=True),
    # garden: home, furniture and patio
    "home_color": _pool("Color", "White|Cream|Light Grey|Charcoal|Navy Blue|Sage Green|Blush Pink|Beige/Tan|Mustard|"
                        "Terracotta|Black/White", images=True),
    "wood_color": _pool("Color", "Espresso|Rustic Oak|Walnut|White/Natural|Black|Grey Wash|Light Brown|"
                        "Vintage Brown", images=True),
    "material": _pool("Material Type", "Solid Wood|Engineered Wood|Metal|Metal/Glass|Rattan|Marble Top", images=True),
    "outdoor_material": _pool("Material Type", "Aluminum|Resin Wicker|Acacia Wood|Powder Coated Steel|Teak",
                              images=True),
    "pattern": _pool("Pattern Name", "Solid|Striped|Geometric|Floral|Plaid|Boho|Herringbone|Moroccan", images=True),
    "pillow_size": _pool("Size", "12 x 20 Inch|16 x 16 Inch|18 x 18 Inch|20 x 20 Inch|22 x 22 Inch|24 x 24 Inch",
                         ordered=True),
    "bed_size": _pool("Size", "Twin|Twin XL|Full|Queen|King|California King", ordered=True),
    "thickness": _pool("Style", "6 Inch|8 Inch|10 Inch|12 Inch|14 Inch", ordered=True),
    "curtain_size": _pool("Size", "42 x 63 Inch|52 x 63 Inch|52 x 84 Inch|52 x 95 Inch|52 x 108 Inch|100 x 84 Inch",
                          ordered=True),
    "art_size": _pool("Size", "12 x 16 Inch|16 x 20 Inch|16 x 24 Inch x 3 Panels|20 x 40 Inch|24 x 36 Inch",
                      ordered=True),
    "art_color": _pool("Color", "Blue Abstract|Black/White|Neutral Beige|Green Botanical|Gold Foil|Multicolor|"
                       "Coastal Teal", images=True),
    "set_size": _pool("Size", "Set of 2|Set of 3|Set of 4|Set of 6", ordered=True),
    "planter_size": _pool("Size", "4 Inch|6 Inch|8 Inch|10 Inch|12 Inch|14 Inch", ordered=True),
    "chair_style": _pool("Style", "High Back|Mid Back|High Back/Footrest|Mid Back/Footrest"),
    "cookware_set": _pool("Size", "3 Piece|5 Piece|8 Piece|10 Piece|12 Piece|15 Piece", ordered=True),
    "cookware_color": _pool("Color", "Black|Grey/Granite|Cream White|Sage Green|Red|Blue Speckle|Stainless",
                            images=True),
    # electronics
    "tech_color": _pool("Color", "Black|White|Space Gray|Silver|Midnight Blue|Rose Gold|Red|Forest Green|Black/Red",
                        images=True),
    "cable_length": _pool("Size", "1.5 Feet|3 Feet|6 Feet|10 Feet|15 Feet|25 Feet|50 Feet", ordered=True),
    "flash_capacity": _pool("Capacity", "16GB|32GB|64GB|128GB|256GB|512GB|1TB", ordered=True),
    "battery_capacity": _pool("Capacity", "5000mAh|10000mAh|20000mAh|26800mAh|30000mAh", ordered=True),
    "phone_size": _pool("Size", "6.1 Inch|6.3 Inch|6.5 Inch|6.7 Inch|6.9 Inch", ordered=True),
    "case_color": _pool("Color", "Clear|Black|Matte Black|Frosted Clear|Navy Blue|Purple|Pink Glitter|Green/Black|"
                        "Transparent Red", images=True),
    "mouse_style": _pool("Style", "Wireless|Bluetooth|Bluetooth + 2.4G|Wired|Silent Click"),
    "switch_style": _pool("Style", "Blue Switch|Red Switch|Brown Switch|Silent Linear"),
    "camera_style": _pool("Style", "1 Camera|2 Cameras|3 Cameras|4 Cameras", ordered=True),
    "projector_style": _pool("Style", "Base|Screen Bundle|Tripod Bundle|Screen/Tripod Bundle"),
    "band_style": _pool("Style", "Sport Band|Metal Band|Leather Band|Nylon Loop"),
    "pack_count": _pool("Item Package Quantity", "1|2|3|5|10", ordered=True),
}


def _t(category: str, query: str, path: str, nouns: str, one_many: str, adj: str, for_: str, with_: str,
       axes: str, price: tuple[float, float], sizes: str = "") -> ProductType:
    """Build a ProductType from compact ``|``-separated strings; a path level ``{a|b}`` is the optional leaf."""
    base, _, leaves = path.partition(" {")
    one, _, many = one_many.partition("/")
    return ProductType(category, query, base.replace(" > ", SEP), _split(leaves.rstrip("}")), _split(nouns),
                       one, many, _split(adj), _split(for_), _split(with_), tuple(axes.split()), price,
                       _split(sizes))


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


CATEGORY_TEXT: dict[str, CategoryText] = {
    "beauty": CategoryText(
        0.21, 0.45, _split("Clear|White|Pink|Rose Gold|Black"),
        _split("Travel Friendly|Daily Care|Made in USA|Self Care Essentials|Beauty Essentials|Perfect Gift|"
               "for Women and Men|Premium Quality"),
        _split("gentle enough for everyday use|so you look and feel your best|without harsh chemicals|"
               "for results you can see and feel|a favorite from salons and spas|fitting easily into any routine"),
        _split("SATISFACTION GUARANTEED: If you are not happy with your {noun}, reach out and we will make it right. |"
               "CLEAN BEAUTY: Free from parabens, phthalates and artificial dyes. |"
               "WHAT YOU GET: Your new {noun} in a recyclable package, ready to gift. |"
               "Suitable for all ages and skin types; for external use only. |"
               "Formulated and tested by cosmetic chemists in small batches. "),
        _split("We formulated our {noun} to keep your routine simple and effective.|"
               "Never tested on animals.|Apply as needed and enjoy a fresh, clean feeling all day.|"
               "Every batch is quality checked before it leaves our lab.|"
               "Store in a cool, dry place away from direct sunlight.|"
               "A thoughtful gift for birthdays, holidays or just because."),
        _split("my skin has never felt better|the scent is light and pleasant|a little goes a long way|"
               "it lasts much longer than the one i used before|my daughter loves it too"),
        _split("it irritated my skin|the smell is too strong for me|the bottle leaked in shipping|"
               "i did not see any difference after a month")),
    "grocery": CategoryText(
        0.19, 0.5, (),
        _split("Family Size|Pantry Staple|Value Pack|Great for Gifting|Bulk Pack|Fresh Taste|Kitchen Essentials|"
               "Premium Quality"),
        _split("so you can snack without the guilt|for a taste the whole family will love|"
               "with nothing artificial added|packed fresh to lock in flavor|perfect for pantry stocking"),
        _split("SHELF STABLE: Store in a cool, dry place and enjoy for months. |"
               "FRESHNESS SEALED: Packed in resealable bags to keep every serving fresh. |"
               "FAMILY OWNED: Made by a family business that has been cooking since 1978. |"
               "Great for lunch boxes, office snacks and road trips. |"
               "Produced in a facility that also handles tree nuts, milk and soy. "),
        _split("At {Brand} we make our {noun} from simple ingredients you can pronounce.|"
               "Enjoy it on its own or add it to your favorite recipes.|"
               "Each batch is prepared in small quantities for consistent taste.|"
               "Please check the label for allergen information.|"
               "Our sourcing partners follow fair labor and sustainable farming practices."),
        _split("it tastes amazing|my kids ask for it every day|it arrived fresh and well packaged|"
               "the flavor is great without being too sweet|we always keep a few in the pantry"),
        _split("it arrived stale|it is way too salty for my taste|the box was crushed|"
               "the flavor was bland and a bit artificial")),
    "fashion": CategoryText(
        0.21, 0.8, _split("Black|White|Navy|Heather Grey|Olive|Burgundy|Khaki|Blue"),
        _split("Casual Fashion|Classic Style|All Season|Lightweight Comfort|Vintage Style|Everyday Essentials|"
               "Perfect Gift|Premium Quality"),
        _split("so you stay comfortable all day long|keeping its shape wash after wash|"
               "for an easy, put-together look|pairing with almost anything in your closet|"
               "without sacrificing style"),
        _split("SIZE GUIDE: Please check the size chart in the images before ordering; fits true to size. |"
               "CARE INSTRUCTIONS: Machine wash cold with like colors, tumble dry low. |"
               "EASY RETURNS: Not the right fit? Exchange it within 30 days. |"
               "Imported; pull on closure. |"
               "Perfect for vacation, weekends, travel, date night or everyday errands. "),
        _split("We cut our {noun} from soft, durable fabric for a flattering fit.|"
               "Dress it up or down for work, weekends and everything in between.|"
               "Designed in California and tested for comfort by real people.|"
               "Colors may vary slightly due to lighting and screen settings.|"
               "A wardrobe staple you will reach for again and again."),
        _split("it fits perfectly|the material is soft and thick|i get compliments every time i wear it|"
               "it is true to size and very comfortable|i bought a second color right away"),
        _split("it runs small, so order a size up|the color faded after one wash|the stitching came loose|"
               "it looks cheaper than in the pictures")),
    "garden": CategoryText(
        0.2, 0.5, _split("White|Grey|Beige|Black|Natural|Walnut|Sage Green|Cream"),
        _split("Modern Home Decor|Housewarming Gift|Easy to Clean|Home Essentials|Durable Construction|Classic Design|"
               "Perfect Gift|Premium Quality"),
        _split("so your home looks pulled together|built to hold up to daily family life|"
               "with a look that suits any decor|built to last for years|for a cozy, inviting space"),
        _split("EASY SETUP: All hardware and clear instructions included; assembles in about 20 minutes. |"
               "WARRANTY: Backed by a 1 year limited warranty and responsive customer service. |"
               "PACKAGE INCLUDES: {noun}, hardware kit and instruction manual. |"
               "Please measure your space before ordering; dimensions are listed in the images. |"
               "Wipe clean with a damp cloth; avoid harsh cleaners. "),
        _split("Give any room a clean, modern look with {Brand} {noun}.|"
               "Built from carefully selected materials and finished by hand.|"
               "Arrives well packed with everything needed for setup.|"
               "Slight variations in color and texture make each piece unique.|"
               "Pairs beautifully with our matching home collection."),
        _split("it looks even better in person|it was sturdy and easy to put together|it is exactly the color i wanted|"
               "it really completes the room|the quality is great for the price"),
        _split("it arrived with a scratch|the color is darker than shown|it wobbles a bit|"
               "one of the screws was missing")),
    "electronics": CategoryText(
        0.19, 0.45, _split("Black|White|Space Gray|Silver|Blue"),
        _split("Travel Essentials|Gift for Dad|Durable Design|Latest Model|Home and Office|Upgraded Version|"
               "Perfect Gift|Premium Quality"),
        _split("so you stay connected wherever you go|for reliable everyday performance|"
               "without any complicated setup|keeping up with work and play|built to handle daily use"),
        _split("WIDE COMPATIBILITY: Works with most laptops, tablets, phones and smart TVs. |"
               "WHAT YOU GET: {noun}, user manual and friendly 24 hour customer service. |"
               "WORRY FREE WARRANTY: 18 month warranty; contact us any time for help. |"
               "Certified for safety with overcharge and short circuit protection. |"
               "Compact and lightweight, easy to toss in a backpack or carry on. "),
        _split("{Brand} designed the {noun} to combine solid performance with a clean, compact design.|"
               "Setup takes just minutes, no extra software required.|"
               "Every unit is tested before shipping.|"
               "Please update your device to the latest firmware for best results.|"
               "A practical gift for students, gamers and busy professionals."),
        _split("it works exactly as advertised|setup took two minutes|it has held up perfectly so far|"
               "the build quality is excellent|it is better than the name brand one i had"),
        _split("it stopped working after two weeks|the connection keeps dropping|the instructions were useless|"
               "it gets hot after a while")),
}

BRANDS: dict[str, tuple[str, ...]] = {
    "beauty": _split("Luvora|Petal & Pine|Aurelle|Dewbloom|Skinsera|Velmora|Calista Botanics|Nuvelle|Maison Lys|"
                     "Honeyhaze|Purelume|Olive & Ash|Sorelle|Glowetta|Bellaroot|Evergleam|Mirabé|Saltwater Rose"),
    "grocery": _split("Harvest Lane|Maple Hollow|Good Acre|Fieldstone Farms|Copper Kettle|Sunny Fork|Wildgrain|"
                      "Nutwell|Brightbean|Peak Pantry|Old Mill Road|Cedar Creek Co.|Tasty Ridge|Honest Hive|"
                      "Blue Mesa|Little Orchard"),
    "fashion": _split("Northwind|Urban Thread|Coastline Apparel|Kestrel|Ivy & Oak|Redfern|Solstice Wear|Alder & Co.|"
                      "Trailblaze|Marlowe|Ember Lane|Fitfour|Velvetta|Stonebridge|Cove Street|Jadeline"),
    "garden": _split("Homewise|Oakhaven|Nestora|Linen & Loom|Hearthside|Greenpatch|Casa Verde|Willowmere|Plumhouse|"
                     "Timberline Home|Softnest|Larkspur Living|Gardenia Lane|Boxwood & Co.|Terrabloom|Driftwood Bay"),
    "electronics": _split("Voltaro|Zentrix|Nexlink|Auralux|Pixelwave|Corvox|Tekmate|Brightcore|Sonique|Kinetiq|"
                          "Ampora|Quantix|Lumetra|Ohmwave|Vireo Tech|Gridbyte"),
}
BRAND_HEADS = _split("Ver|Lum|Nor|Cal|Bel|Zen|Mar|Sol|Ori|Kai|Tra|Ven|Ala|Rho|Ome|Lux|Cor|Eli|Fen|Hal")
BRAND_TAILS = _split("ora|ix|ly|ant|ex|wood|field|ava|ico|una|ara|on|eta|ique|well|co")

ACRONYMS: dict[str, str] = {
    w: w.upper() for w in _split("usb|hd|led|bpa|gmo|uv|hdmi|pfoa|rgb|dpi|spf|hdr|usda|sls|gps|pc|ph|xl")
}
ACRONYMS.update({"4k": "4K", "1080p": "1080P", "3.0": "3.0", "2.4g": "2.4G"})
SMALL_WORDS = frozenset(_split("and|for|with|of|in|a|the|on|to|or"))

# Bullet sentences by attribute kind; {attr} is the phrase as written, {benefit} a category benefit.
BULLET_HEADERS = ("{Attr}: ", "{ATTR} - ", "【{Attr}】", "✔ {Attr}: ", "{ATTR}: ")
BULLET_ADJ = ("{This} {noun} {is} {attr}, {benefit}.", "Every {Brand} product is {attr}, {benefit}.",
              "Proudly {attr} and made with care, {benefit}.")
BULLET_FOR = ("Specially designed for {attr}, {benefit}.", "A smart choice for {attr}, {benefit}.",
              "Made with {attr} in mind, {benefit}.")
BULLET_WITH = ("Features {attr}, {benefit}.", "Upgraded with {attr}, {benefit}.",
               "Comes with {attr}, {benefit}.")

# Shopper requests for the synthetic goals (items_ins_v2.json); {a} is "a"/"an" + the phrase.
INSTRUCTION_ONE = ("i need {a}", "i am looking for {a}", "i want to buy {a}", "find me {a}",
                   "i'd like {a}, please", "Find me {a}")
INSTRUCTION_MANY = ("i need {p}", "i'm looking for {p}", "Find me {p}", "show me some {p}", "i want {p}")
# Human-style requests with options; {opts} is the spoken option list.
HUMAN_ONE = ("i want {a}, {opts}", "i need {a} in {opts}", "hi, i'm looking for {a}. i'd like it in {opts}, please",
             "i am shopping for {a} that comes in {opts}", "can you find me {a}? i want {opts}",
             "looking for {a}, preferably {opts}")
HUMAN_MANY = ("i want {p} in {opts}", "i need some {p}, {opts}", "i'm looking for {p} that come in {opts}",
              "find me {p} please, {opts}")
OPTION_SPEECH: dict[str, str] = {
    "color": "{v} color", "size": "size {v}", "fit type": "{v} fit", "scent": "{v} scent",
    "flavor name": "{v} flavor", "item package quantity": "pack of {v}", "capacity": "{v} capacity",
    "style": "the {v} style", "material type": "{v} material", "pattern name": "{v} pattern",
}

REVIEW_TITLES_GOOD = _split("Love it!|Works great|Exactly as described|Great value|Five stars|Would buy again|"
                            "Highly recommend|So happy with this|Better than expected")
REVIEW_TITLES_MID = _split("It's okay|Decent for the price|Does the job|Good but not great|Mixed feelings")
REVIEW_TITLES_BAD = _split("Disappointed|Not as pictured|Would not buy again|Returned it|Save your money")
REVIEW_OPENERS = ("I've been using {this} {noun} for {n} weeks now and {good}.", "Bought this as a gift and {good}.",
                  "Honestly {good}.", "Second time ordering; {good}.")
REVIEW_MID = ("It's fine overall, but {bad}.", "Does what it says, although {bad}.",
              "Not bad for the price; {good}, but {bad}.")
REVIEW_BAD = ("Unfortunately {bad}.", "Really wanted to like {this} {noun}, but {bad}.", "{bad_cap}. Returned it.")
REVIEW_ATTR: dict[str, tuple[str, ...]] = {
    "adj": ("It really is {attr}.", "Love that it is {attr}."),
    "for": ("Great for {attr}.", "I use it for {attr} and it works."),
    "with": ("Love the {attr}.", "Also, the {attr} made a real difference."),
}
