"""Option pools of the synthetic catalog: the values each option axis (colour, size, flavour...) can take.

Kept apart from :mod:`product_types`, which names these pools by key in each type's ``axes``.
"""

from __future__ import annotations

from shopsim.simsite.catalog.vocabulary_shapes import OptionPool, split


def _pool(axis: str, values: str, ordered: bool = False, images: bool = False) -> OptionPool:
    return OptionPool(axis, split(values), ordered, images)


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
