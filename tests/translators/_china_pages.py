"""Our own small pages in the layouts of the Chinese shops, for ``test_china_shops``.

Written after the public descriptions of these shops' markup (class words, ids, data attributes,
script globals, URL shapes): classic and React Taobao/Tmall, JD's classic and 2026 item pages,
1688's search cards of 2024 and 2025, AliExpress items of 2021/2024 and its ``runParams``, and the
search pages of JD, Taobao and AliExpress.
"""

from __future__ import annotations

TAOBAO_2026 = """<!DOCTYPE html><html><head><title>加厚羽绒服女-淘宝网</title>
<link rel="canonical" href="https://item.taobao.com/item.htm?id=781234567890"></head><body>
<div class="site-nav"><a href="https://login.taobao.com/">亲，请登录</a></div>
<div class="ItemHeader--root--DXhqHxP"><h1 class="ItemHeader--mainTitle--3CIjqW5 f-els-2">冬季加厚羽绒服 女 中长款</h1></div>
<div class="Price--root--1CrVGjc"><div class="Price--priceWrap"><span class="Price--symbol--2oe2mCP">¥</span>
<span class="Price--priceText--2nLbVda">459</span></div>
<div class="Price--originPrice--2c8ipVx"><span class="Price--priceText--2nLbVda">¥899</span></div></div>
<div class="SkuContent--content--2UKSo-9">
 <div class="SkuContent--skuItem--3Nb1tMw"><div class="ItemLabel--label--3_r0ZNT">
   <span class="ItemLabel--labelText--3QV48AM">颜色分类</span></div>
  <div class="SkuContent--contentWrap">
   <div class="SkuContent--valueItem--1Q1b8S3 SkuContent--isSelected--tfxz6VP"><img src="a.jpg">
     <span class="SkuContent--valueItemText--1hHpj0r" title="黑色">黑色</span></div>
   <div class="SkuContent--valueItem--1Q1b8S3"><span class="SkuContent--valueItemText--1hHpj0r" title="杏色">杏色</span></div>
  </div></div>
 <div class="SkuContent--skuItem--3Nb1tMw"><div class="ItemLabel--label--3_r0ZNT">
   <span class="ItemLabel--labelText--3QV48AM">尺码</span></div>
  <div class="SkuContent--valueItem--1Q1b8S3"><span class="SkuContent--valueItemText--1hHpj0r">S</span></div>
  <div class="SkuContent--valueItem--1Q1b8S3 SkuContent--isDisabled--x"><span class="SkuContent--valueItemText--1hHpj0r">M</span></div>
 </div></div>
<button class="Actions--btn">立即购买</button></body></html>"""


TMALL_SCRIPT_ONLY = """<html><head><title>三只松鼠坚果礼盒-tmall.com天猫</title></head><body>
<div class="E7gD8doUq1--ItemHeader--2f1d21a"><h1 class="E7gD8doUq1--mainTitle--a1b2c3">三只松鼠 每日坚果 750g</h1></div>
<div class="E7gD8doUq1--highlightPrice--5a1b3c"><span class="E7gD8doUq1--symbol--x">￥</span>
<span class="E7gD8doUq1--text--1a2b3c">89.90</span></div>
<div id="purchasePanel"></div>
<script>window.__ICE_APP_CONTEXT__ = {"loaderData":{"home":{"data":{"res":{"item":{"itemId":"612345678901",
"title":"三只松鼠 每日坚果 750g"},"skuBase":{"props":[{"pid":"122216343","name":"口味","values":[{"vid":"1","name":"原味"},
{"vid":"2","name":"混合坚果"}]},{"pid":"5919063","name":"净含量","values":[{"vid":"3","name":"750g"}]}],
"skus":[{"propPath":"122216343:1;5919063:3","skuId":"5000000001"}]}}}}}};</script>
</body></html>"""


JD_2026 = """<!DOCTYPE html><html><head><meta charset="utf-8">
<title>【Apple iPhone 15】Apple iPhone 15 (A3092) 128GB 黑色【行情 报价 价格 评测】-京东</title>
<link rel="stylesheet" href="//misc.360buyimg.com/jdf/1.0.0/unit/ui-base/5.0.0/ui-base.css"></head><body>
<div id="crumb-wrap"><div class="crumb fl clearfix"><div class="item first"><a href="//shouji.jd.com">手机通讯</a></div>
<div class="item sep">&gt;</div><div class="item"><a href="//list.jd.com/list.html?cat=9987,653">手机</a></div>
<div class="item sep">&gt;</div><div class="item"><a href="//list.jd.com/list.html?cat=9987,653,655">手机</a></div>
<div class="item sep">&gt;</div><div class="item ellipsis" title="Apple iPhone 15">Apple iPhone 15</div></div></div>
<div class="itemInfo-wrap"><div class="sku-name"><img src="//img.360buyimg.com/x.png" alt="">Apple iPhone 15 (A3092) 128GB 黑色 支持移动联通电信5G 双卡双待手机</div>
<div class="summary-price J-summary-price"><div class="dt">京 东 价</div><div class="dd">
<span class="p-price"><span>￥</span><span class="price J-p-100066896338">5999.00</span></span></div></div>
<div id="choose-attrs">
 <div id="choose-attr-1" class="li p-choose" data-type="颜色" data-idx="0"><div class="dt">选择颜色</div><div class="dd">
  <div class="item selected" data-sku="100066896338" data-value="黑色"><b></b><a href="#none"><img src="a.jpg"><i>黑色</i></a></div>
  <div class="item" data-sku="100066896356" data-value="蓝色"><b></b><a href="#none"><img src="b.jpg"><i>蓝色</i></a></div>
 </div></div>
 <div id="choose-attr-2" class="li p-choose" data-type="版本" data-idx="1"><div class="dt">选择版本</div><div class="dd">
  <div class="item selected" data-value="128GB"><b></b><a href="#none">128GB</a></div>
  <div class="item" data-value="256GB"><b></b><a href="#none">256GB</a></div>
 </div></div></div></div>
<div class="m-aside"><ul><li data-sku="100050000001" class="gl-item"><div class="p-name"><a href="//item.jd.com/100050000001.html">
看了又看 手机壳</a></div><div class="p-price"><strong><i>19.90</i></strong></div></li></ul></div>
<script>var pageConfig = { product: { skuid: 100066896338, name: '\\u0041pple iPhone 15', colorSize: [{"skuId":100066896338,"颜色":"黑色","版本":"128GB"}] } };</script>
</body></html>"""


TMALL_CLASSIC = """<html><head><meta charset="gbk"><title>良品铺子 坚果-tmall.com天猫</title></head><body>
<div class="tb-detail-hd"><h1 data-spm="1000983">良品铺子 每日坚果 混合果仁 750g/30袋</h1><p class="newp">新鲜日期</p></div>
<div class="tm-fcs-panel"><dl class="tm-price-panel" id="J_StrPriceModBox"><dt class="tb-metatit">价格</dt>
<dd><em class="tm-yen">¥</em><span class="tm-price">159.00</span></dd></dl>
<dl class="tm-promo-panel tm-promo-cur" id="J_PromoPrice"><dt class="tb-metatit">促销价</dt><dd><div class="tm-promo-price">
<em class="tm-yen">¥</em><span class="tm-price">99.00</span></div></dd></dl></div>
<div class="tb-sku"><dl class="tb-prop tm-sale-prop tm-clear "><dt class="tb-metatit">口味</dt><dd>
<ul data-property="口味" class="tm-clear J_TSaleProp"><li data-value="1627207:28320" title="原味" class="tb-selected">
<a href="#" role="button"><span>原味</span></a><i>已选中</i></li>
<li data-value="1627207:28321" title="盐焗"><a href="#" role="button"><span>盐焗</span></a><i>已选中</i></li></ul></dd></dl>
<dl class="tb-prop tm-sale-prop tm-clear "><dt class="tb-metatit">净含量</dt><dd><ul class="tm-clear J_TSaleProp">
<li data-value="5919063:1"><a href="#"><span>750g</span></a></li></ul></dd></dl>
<dl class="tb-prop tm-sale-prop tm-clear "><dt class="tb-metatit">袋数</dt><dd><ul class="tm-clear J_TSaleProp">
<li data-value="2:30"><a href="#"><span>30</span></a></li><li data-value="2:60"><a href="#"><span>60</span></a></li></ul>
</dd></dl></div></body></html>"""


TAOBAO_2025 = """<html><head><title>x-淘宝网</title></head><body>
<div class="mainTitle--R75fTcZL f-els-2" title="新款连衣裙">新款连衣裙</div>
<div class="highlightPrice--LlVWiXXs"><span class="symbol--x">￥</span><span class="text--LP7Wf49z">129</span></div>
<div class="subPrice--KfQ0yn4v"><span class="text--LP7Wf49z">199</span></div>
<div class="SkuContent--content--x"><div class="skuItem--Z2AJB9Ew"><div class="skuCate--L4zOJcVZ">
<span class="skuCateText--A2wh0X8Y">颜色分类</span></div><div class="skuItemWrapper--x"><div class="skuValueWrap--aEfxuhNr">
<div class="valueItem--smR4pNt4 isSelected--YrZKhMHm" data-disabled="false"><div class="valueItemImgWrap--ZvA2Cmim">
<img src="a.jpg"></div><span class="valueItemText--T7YrR8tk" title="白色">白色</span></div>
<div class="valueItem--smR4pNt4"><span class="valueItemText--T7YrR8tk" title="黑色">黑色</span></div></div></div></div></div>
</body></html>"""


ALIEXPRESS_2021 = """<html><head><title>Phone Case - AliExpress</title></head><body>
<h1 class="product-title-text">Silicone Phone Case for iPhone 15</h1>
<div class="product-price"><div class="product-price-current"><span class="product-price-value">US $1.23 - 4.56</span></div>
<div class="product-price-original"><span class="product-price-value">US $2.46 - 9.12</span></div></div>
<div class="product-sku"><div class="sku-wrap">
<div class="sku-property"><div class="sku-title">Color:<span class="sku-title-value">Red</span></div>
<ul class="sku-property-list"><li class="sku-property-item selected"><div class="sku-property-image">
<img src="r.jpg" alt="Red" title="Red"></div></li>
<li class="sku-property-item"><div class="sku-property-image"><img src="b.jpg" alt="Blue"></div></li></ul></div>
<div class="sku-property"><div class="sku-title">Model:</div>
<ul class="sku-property-list"><li class="sku-property-item"><div class="sku-property-text"><span>iPhone 15</span></div></li>
<li class="sku-property-item"><div class="sku-property-text"><span>iPhone 15 Pro</span></div></li></ul></div></div></div>
<div class="overview-rating-average">4.7</div><script src="//ae01.alicdn.com/a.js"></script></body></html>"""


JD_2026_SPEC = """<html><head><title>【华为Mate 70】华为 HUAWEI Mate 70【行情 报价 价格 评测】-京东</title>
<link rel="canonical" href="https://item.jd.com/100148282818.html"></head><body>
<div class="sku-title"><img class="sku-title-icon" src="x.png"><span class="sku-title-name">华为 HUAWEI Mate 70 12GB+512GB 雅川青</span></div>
<div class="product-price product-price--main"><span class="product-price--symbol">¥</span>
<span class="product-price--value">5999.00</span></div>
<div class="product-price product-price--origin"><span class="product-price--value">6499.00</span></div>
<div class="page-right-spec">
 <div class="specification-series-layout"><div class="layout-label">系列</div>
  <div class="specification-series-item specification-series-item--selected"><span class="series-item-text">Mate 70</span></div>
  <div class="specification-series-item"><span class="series-item-text">Mate 70 Pro</span></div></div>
 <div class="specification-group"><div class="specification-group-label">颜色</div>
  <div class="specification-item-sku has-image specification-item-sku--selected"><img class="specification-item-sku-image" src="a.jpg">
   <span class="specification-item-sku-text">雅川青</span></div>
  <div class="specification-item-sku has-image specification-item-sku--lack"><img class="specification-item-sku-image" src="b.jpg">
   <span class="specification-item-sku-text">曜石黑</span></div></div>
 <div class="specification-group"><div class="specification-group-label">版本</div>
  <div class="specification-item-sku"><span class="specification-item-sku-text">12GB+256GB</span></div>
  <div class="specification-item-sku specification-item-sku--selected"><span class="specification-item-sku-text">12GB+512GB</span></div>
 </div></div></body></html>"""


ALIEXPRESS_2024 = """<html><head><title>Wireless Earbuds Bluetooth 5.3 - AliExpress 44</title>
<meta property="og:url" content="https://www.aliexpress.com/item/1005006123456789.html"></head><body>
<div class="title--wrap--UUHae_g"><h1 data-pl="product-title">Wireless Earbuds Bluetooth 5.3 Headphones</h1></div>
<div class="price--current--I3Zeidd product-price"><div class="price--currentPriceText--V8_y_b5 pdp-comp-price-current">US $12.99</div>
<span class="price--originalText--gxVO5_d">US $25.98</span></div>
<div class="sku-item--property--HuasaIz"><div class="sku-item--title--Z0HLO87">Color: <span>White</span></div>
 <div class="sku-item--skus--StEhULs"><div class="sku-item--image--jMUnnGA sku-item--selected--PZ3W1Rc" data-sku-col="14-175">
   <img src="w.jpg" alt="White"></div>
  <div class="sku-item--image--jMUnnGA" data-sku-col="14-193"><img src="b.jpg" alt="Black"></div></div></div>
<div class="sku-item--property--HuasaIz"><div class="sku-item--title--Z0HLO87">Ships From: </div>
 <div class="sku-item--skus--StEhULs"><div class="sku-item--text--hYfAukP" title="China"><span>China</span></div>
  <div class="sku-item--text--hYfAukP" title="Spain"><span>Spain</span></div></div></div>
<script>window.runParams = {};</script>
</body></html>"""


ALIEXPRESS_RUNPARAMS = """<html><head><title>USB C Cable - AliExpress</title></head><body>
<div id="root"></div>
<script>
window.runParams = {
    data: {"titleModule":{"subject":"USB C Cable 100W Fast Charging","feedbackRating":{"averageStar":"4.8"}},
    "priceModule":{"formatedActivityPrice":"US $1.99","formatedPrice":"US $3.98"},
    "skuModule":{"productSKUPropertyList":[{"skuPropertyName":"Color","skuPropertyValues":[
      {"propertyValueDisplayName":"Black","propertyValueName":"black"},{"propertyValueDisplayName":"White"}]},
      {"skuPropertyName":"Length","skuPropertyValues":[{"propertyValueDisplayName":"1m"},{"propertyValueDisplayName":"2m"}]}]},
    "actionModule":{"productId":1005001234567890}}
};
</script><script src="https://ae01.alicdn.com/x.js"></script></body></html>"""


def _1688_card(offer: str, title: str, price: str, ad: bool) -> str:
    """One 1688 offer card of 2024: its report data says whether it is an ad."""
    link = f"https://dj.1688.com/ci_bb?a=1&e={offer}x" if ad else f"https://detail.1688.com/offer/{offer}.html"
    return (f'<div class="search-offer-item" data-aplus-report="object_type@offer^object_id@{offer}^_p_isad@{int(ad)}">'
            f'<a href="{link}"><div class="offer-title-row"><span class="icon icon_hot">1688严选</span>'
            f'<div class="title-text">{title}</div></div><div class="offer-price-row"><span class="price-item">'
            f'<span class="unit">¥</span>{price}</span></div><div class="sale">成交100+件</div></a></div>')


S1688 = ("""<html><head><title>手机壳-手机壳批发、促销价格、产地货源 - 阿里巴巴</title></head><body>
<div class="header-search"><input class="search-input" type="text" value="手机壳"></div><div class="space-common-offerlist">"""
         + _1688_card("700000000001", "透明手机壳适用苹果15", "2.50", True)
         + _1688_card("700000000002", "磨砂硅胶手机壳批发", "1.20", False)
         + _1688_card("700000000003", "卡通手机壳定制", "3.80", False)
         + """</div><div class="pagination"><button class="fui-prev" disabled>上一页</button>
<button class="fui-next">下一页</button></div><script src="https://g.alicdn.com/sd/baxia/2.5.6/baxiaCommon.js"></script>
</body></html>""")


TAOBAO_SEARCH_SCRIPT = """<html><head><title>手机壳_淘宝搜索</title></head><body><div id="main"></div>
<script>g_page_config = {"pageName":"mainsrp","mods":{"itemlist":{"status":"show","data":{"auctions":[""" + ",".join(
    f'{{"nid":"6{i}0000000001","title":"<span class=H>手机壳</span>款{i}","raw_title":"手机壳款{i}",'
    f'"view_price":"{i}9.00","detail_url":"//item.taobao.com/item.htm?id=6{i}0000000001","nick":"店{i}"}}'
    for i in range(1, 5)) + """]}}}};
g_srp_loadCss();</script></body></html>"""


JD_SEARCH = """<html><head><title>耳机 - 商品搜索 - 京东</title></head><body><input id="key" type="text">
<div id="J_goodsList"><ul class="gl-warp">""" + "".join(
    f"""<li data-sku="1000{i}0000" class="gl-item"><div class="p-img"><a href="//item.jd.com/1000{i}0000.html"></a></div>
<div class="p-scroll"><img data-sku="2000{i}0000"></div>
<div class="p-price"><strong><em>￥</em><i>{i}9.00</i></strong></div>
<div class="p-name"><a href="//item.jd.com/1000{i}0000.html"><em>蓝牙<font class="skcolor_ljg">耳机</font> {i}号</em>
<i class="promo-words">限时促销</i></a></div>{'<span class="p-promo-flag">广告</span>' if i == 2 else ''}</li>"""
    for i in range(1, 5)) + """</ul></div>
<div class="page"><a class="pn-prev disabled">上一页</a><a class="curr">1</a><a onclick="SEARCH.page(3, true)">2</a>
<a class="pn-next" onclick="SEARCH.page(3, true)" href="javascript:;"><em>下一页</em><i>&gt;</i></a></div></body></html>"""


S1688_2025 = """<html><head><title>数据线 - 1688</title></head><body><div class="page-offerlist">""" + "".join(
    f"""<div class="search-offer-wrapper"><a class="search-offer-item major-offer" href="{link}" target="_blank">
<div class="mojar-element-image"><img src="x.jpg"></div><div class="offer-title-row"><span class="tag">源头工厂</span>
<div class="title-text">{title}</div></div><div class="offer-price-row"><div class="price-item"><span class="price-unit">¥</span>
<span class="text-main">{price}</span></div><span class="offer-sale">已售1000+件</span></div></a></div>"""
    for link, title, price in (
        ("https://dj.1688.com/ci_bb?a=1&e=xyz&offerId=800000000001", "广告款快充数据线", "3.2"),
        ("https://detail.1688.com/offer/800000000002.html?spm=a26352.13672862", "编织数据线 1米", "1.5"),
        ("https://detail.1688.com/offer/800000000003.html", "磁吸数据线 2米", "4.8"))) + """</div>
<div class="fui-paging"><a class="fui-prev fui-disabled">上一页</a><span class="fui-current">1</span>
<a class="fui-next" href="javascript:;">下一页</a></div></body></html>"""


TAOBAO_SEARCH_2024 = """<html><head><title>连衣裙_淘宝搜索</title></head><body><input id="q" name="q" value="连衣裙">
<div class="content--CUnfXXxv">""" + "".join(f"""<a class="doubleCardWrapperAdapt--mEcC7olq" target="_blank"
href="//item.taobao.com/item.htm?id=7{i}0000000001&ns=1"><div class="mainPicAdaptWrapper--V_ayd2hD"><img src="a.jpg"></div>
<div class="title--qJ7Xg_90 "><span>法式<span style="color:#FF0000">连衣裙</span> {i}号</span></div>
<div class="priceWrapper--dBtPZ2K1"><div class="unit--D3LtQuxE">¥</div><div class="priceInt--yqqZMJ5a">{i}9</div>
<div class="priceFloat--XpixvyQ1">.90</div><span class="realSales--XZJiepmt">200+人付款</span></div>
<div class="shopNameText--DmtlsDKm">某某旗舰店</div></a>""" for i in range(1, 4)) + """</div>
<div class="pgWrap--RTFKoWa6"><button class="next-btn next-pagination-item next-next" type="button">
<span class="next-btn-helper">下一页</span></button></div></body></html>"""


ALIEXPRESS_SEARCH = """<html><head><title>usb cable - AliExpress</title></head><body><div id="card-list">""" + "".join(f"""
<div class="search-item-card-wrapper-gallery"><a class="multi--container--1UZxxHY search-card-item"
href="//www.aliexpress.com/item/100500{i}000000.html?algo=x"><div class="multi--image--2bIiWPB"><img src="x.jpg" alt=""></div>
<div class="multi--content--11nFIBL"><div title="USB C Cable {i}" class="multi--title--G7dOCj3">
<h3 class="multi--titleText--nXeOvyr">USB C Cable {i}</h3></div><div class="multi--price--1okBCly">
<div class="multi--price-sale--U-S0jtj"><span>US $</span><span>{i}</span><span>.</span><span>99</span></div>
<div class="multi--price-original--1zEQqOK"><span>US $9.99</span></div></div>{'<span class="ad--x">Ad</span>' if i == 2 else ''}
</div></a></div>""" for i in range(1, 4)) + """</div><ul class="comet-pagination"><li class="comet-pagination-next">
<button class="comet-pagination-item-link" aria-label="Next"><span>›</span></button></li></ul></body></html>"""


TMALL_LIST = """<html><head><title>坚果-天猫Tmall.com</title></head><body><div id="J_ItemList">""" + "".join(f"""
<div class="product" data-id="5{i}0000000001"><div class="product-iWrap"><div class="productImg-wrap">
<a href="//detail.tmall.com/item.htm?id=5{i}0000000001&skuId=1" class="productImg"><img src="x.jpg"></a></div>
<p class="productPrice"><em title="{i}9.90"><b>&yen;</b>{i}9.90</em></p>
<p class="productTitle"><a href="//detail.tmall.com/item.htm?id=5{i}0000000001" title="三只松鼠 坚果 {i}">三只松鼠 坚果 {i}</a></p>
<div class="productShop"><a class="productShop-name" href="//store.taobao.com/shop/view_shop.htm?user_number_id=1">
三只松鼠旗舰店</a></div><p class="productStatus"><span>月成交 <em>1.2万笔</em></span></p></div></div>"""
    for i in range(1, 4)) + """</div>
<div class="ui-page"><a class="ui-page-next" href="?q=%BC%E1%B9%FB&s=60">下一页&gt;&gt;</a></div></body></html>"""
