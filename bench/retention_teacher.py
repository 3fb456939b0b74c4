# ruff: noqa: E501  (chat lines, one a line)
"""A retention script (:mod:`bench.retention`) written by a helper session from a brief (the
dataclasses of :mod:`bench.retention_sets`, the slots, the counts) without reading any file of the
project: a 58-year-old teacher near retirement who lives between Chengdu and Manchester, warm and rambling. Like ``TUNE`` and ``WRITTEN``, the engine may be tuned on it.
"""

from __future__ import annotations

from bench.retention_sets import Fact, NonUpdate, Script, Update, _ask

_FACTS = (
    Fact(
        "home",
        "zh",
        "哎呀今天下午没课，在楼下那家苍蝇馆子坐了一下午😂 我们家在玉林这边住了快二十年了，"
        "小区是老了点，电梯也没有，但是出门就是菜市场，卖豆花的大姐都认得我，我是真舍不得搬。",
        "玉林",
        _ask("你还记得我家住在哪一片吗？", "Do you remember which part of town I live in?"),
        slot="home",
    ),
    Fact(
        "daughter",
        "zh",
        "我女儿晓雯在曼彻斯特那边当护士快十年了，每次视频都说妈你别操心别操心，"
        "我怎么可能不操心嘛，她上夜班我这边正好是白天，我就一直盯着手机等她下班😅",
        "晓雯",
        _ask("我女儿叫什么名字？", "What's my daughter's name?"),
    ),
    Fact(
        "job",
        "en",
        "Marking 47 essays tonight on 'My Dream Holiday', half of them say the Maldives lol. "
        "Been teaching Senior 2 English at 树德 for donkey's years and the kids STILL can't spell "
        "'accommodation' 🙈 anyway, cup of tea and back to it",
        "树德",
        _ask("我是做什么工作的，在哪个学校？", "What do I do for a living, and where?"),
        slot="job",
    ),
    Fact(
        "son_job",
        "en",
        "My son finally called!! He's still down in Shenzhen working at DJI on the drone cameras, "
        "says he's busy busy busy. I told him busy is not an excuse not to ring your mother 😤 "
        "he laughed, cheeky boy",
        "DJI",
        _ask("我儿子在哪家公司上班？", "Which company does my son work for?"),
    ),
    Fact(
        "car",
        "zh",
        "我那辆比亚迪又亮故障灯了，开了八年了，修车师傅说我再修下去就是给他送钱🙄 "
        "可是开惯了嘛，座椅都坐出我的形状了",
        "比亚迪",
        _ask("我开的是什么车？", "What car do I drive?"),
        slot="car",
    ),
    Fact(
        "grandchild_name",
        "en",
        "Poppy said 'wai po' on the video call today!!! clear as anything, I cried into my noodles "
        "😭❤️ my first grandbaby, I still can't believe I'm old enough to be somebody's granny",
        "Poppy",
        _ask("我外孙女的英文名叫什么？", "What's my granddaughter called?"),
    ),
    Fact(
        "phone",
        "en",
        "Sorry for the late reply, my Huawei Mate 40 battery is dead by lunchtime these days, "
        "I'm carrying a power bank the size of a brick around school haha. The students think "
        "it's hilarious",
        "Mate 40",
        _ask("我现在用的是什么手机？", "What phone am I using?"),
        slot="phone",
    ),
    Fact(
        "grandchild_birthday",
        "zh",
        "小外孙女的生日是3月11号，我已经在琢磨明年去英国给她过两岁生日了，带什么礼物好呢🤔 "
        "虎头鞋？会不会太土了哈哈",
        "3月11",
        _ask("我外孙女生日是哪一天？", "When is my granddaughter's birthday?"),
    ),
    Fact(
        "partner",
        "en",
        "Graham rang at 6am his time again, totally forgetting the 7 hour difference, bless him. "
        "Nearly four years together and the man still can't do time zones 😂 he's lovely though, "
        "he'd already learned to say zao shang hao",
        "Graham",
        _ask("我男朋友叫什么名字？", "What's my partner's name?"),
        slot="partner",
    ),
    Fact(
        "cat",
        "zh",
        "家里那只橘猫麻花又胖了，十四斤！兽医说要减肥，我减它的猫粮它就半夜蹲在我枕头边上看我，"
        "那个眼神像我欠它钱一样",
        "麻花",
        _ask("我家猫叫什么？", "What's my cat's name?"),
    ),
    Fact(
        "school",
        "en",
        "Did I tell you I signed up with the Open Uni? Just one little module, children's literature, "
        "all distance learning. At my age!! First assignment is due next month and I'm more nervous "
        "than my own students before gaokao lol",
        "Open Uni",
        _ask("我现在在哪所学校读书？", "Which university am I studying with at the moment?"),
        slot="school",
    ),
    Fact(
        "drug_allergy",
        "en",
        "Doctor wanted to give me antibiotics for this chest thing, good job I reminded him I'm "
        "allergic to 青霉素, last time I swelled up like a balloon. Always tell them, always!",
        "青霉素",
        _ask("我对什么药过敏？", "Which medicine am I allergic to?"),
    ),
    Fact(
        "diet",
        "zh",
        "体检报告出来了，血糖有点偏高，医生让我控糖，现在奶茶蛋糕一律不碰，连红糖糍粑都不敢吃，"
        "唉，人生少了一半乐趣😭",
        "控糖",
        _ask("我现在饮食上有什么讲究？", "What kind of diet am I on these days?"),
        slot="diet",
    ),
    Fact(
        "food_allergy",
        "zh",
        "学生家长送了我一箱芒果，心意我领了，可惜我一吃嘴巴就肿成香肠，只好拿去分给办公室的同事了，"
        "他们高兴得很",
        "芒果",
        _ask("我吃什么水果会过敏？", "Which fruit am I allergic to?"),
    ),
    Fact(
        "hometown",
        "zh",
        "说起灯会，我是在自贡长大的，小时候每年过年都要挤去看恐龙灯，被大人扛在肩膀上，"
        "那时候觉得全世界最亮的地方就是那儿了",
        "自贡",
        _ask("我老家是哪里的？", "Where's my hometown?"),
        slot="hometown",
    ),
    Fact(
        "exercise",
        "en",
        "Up at 6:30 for 八段锦 in the park with the aunties, we're a proper little gang now, "
        "eight of us, one brings a speaker. My back has honestly never felt better",
        "八段锦",
        _ask("我早上在公园练的是什么？", "What exercise do I do in the park in the mornings?"),
    ),
    Fact(
        "favourite_food",
        "zh",
        "周末又专门跑去双流买了一袋兔头，一边啃一边看电视，这是世界上最好吃的东西没有之一！"
        "英国的亲家在视频里看到，说像恐怖片😂",
        "兔头",
        _ask("我最喜欢吃的东西是什么？", "What's my all-time favourite food?"),
        slot="favourite_food",
    ),
    Fact(
        "bp_medicine",
        "en",
        "Note to self (and to you, since you remember things better than me lol): amlodipine, 5mg, "
        "every morning. The blood pressure ones. I keep forgetting whether I've taken them or not",
        "amlodipine",
        _ask("我每天吃的降压药叫什么？", "What's the name of my blood pressure medication?"),
    ),
    Fact(
        "favourite_drink",
        "en",
        "First cup of 竹叶青 of the morning, sitting by the window watching the neighbours argue "
        "about parking... honestly nothing beats it. My daughter keeps posting me fancy teas and "
        "I always go back to this one",
        "竹叶青",
        _ask("我最爱喝的是什么？", "What's my favourite drink?"),
        slot="favourite_drink",
    ),
    Fact(
        "best_colleague",
        "zh",
        "办公室里跟我最好的是丽萍，教数学的，我们俩中午一起吃饭吐槽领导吐槽了十几年了，"
        "她下学期也要退了，以后没人陪我骂人了😂",
        "丽萍",
        _ask("我在学校最要好的同事是谁？", "Who's my closest colleague at school?"),
    ),
    Fact(
        "team",
        "zh",
        "昨晚去凤凰山看蓉城踢球，嗓子都喊哑了！旁边一个小伙子居然是我十年前教过的学生，"
        "还喊我刘老师，太有面子了😄",
        "蓉城",
        _ask("我支持哪支球队？", "Which football team do I support?"),
        slot="team",
    ),
    Fact(
        "son_in_law",
        "en",
        "My son-in-law Tom is from Stockport, lovely lad, plumber, but his accent!! First time I met "
        "him I understood maybe one word in three, and I'm supposed to be an English teacher 😂",
        "Stockport",
        _ask("我女婿是哪里人？", "Where's my son-in-law from?"),
    ),
    Fact(
        "instrument",
        "zh",
        "退休前给自己定个小目标：把古筝学会！现在每周二晚上去上课，手指头弹得生疼，"
        "老师说我节奏感还可以，我就当她是在鼓励我吧😅",
        "古筝",
        _ask("我最近在学什么乐器？", "What instrument am I learning?"),
        slot="instrument",
    ),
    Fact(
        "trip",
        "en",
        "Still dreaming about last summer... we took the little one to Windermere, rented a tiny "
        "cottage, it rained four days out of five and I loved every single minute of it",
        "Windermere",
        _ask("去年夏天我们去湖区哪里玩了？", "Where in the Lake District did we go last summer?"),
    ),
    Fact(
        "retirement_date",
        "zh",
        "正式退休的时间定下来了，2025年7月，送完这届高三刚刚好。说不上是高兴还是难过，心里有点空落落的",
        "2025年7月",
        _ask("我什么时候正式退休？", "When exactly do I retire?"),
    ),
    Fact(
        "computer",
        "en",
        "My poor old ThinkPad takes about five minutes to wake up, I make a cup of tea while it "
        "thinks about its life choices. The IT lad at school laughs every time he sees it",
        "ThinkPad",
        _ask("我用的是什么电脑？", "What computer do I use?"),
        slot="computer",
    ),
    Fact(
        "book",
        "zh",
        "最近又把《围城》翻出来看了，年轻时候看是看笑话，现在看是看自己，哈哈哈，钱钟书真是毒舌",
        "围城",
        _ask("我最近在重读哪本书？", "Which book have I been rereading lately?"),
    ),
    Fact(
        "tv_show",
        "en",
        "Confession: I watch Corrie every evening on the iPad at my daughter's place 'for listening "
        "practice'. Really I just want to know who's fallen out with who in the Rovers lol",
        "Corrie",
        _ask("我在英国每天晚上追哪部剧？", "What TV soap do I watch every evening?"),
    ),
    Fact(
        "commute",
        "zh",
        "每天早上骑电瓶车去学校，十五分钟，下雨天就套那种大雨衣，远远看着像个蓝色的蘑菇🍄",
        "电瓶车",
        _ask("我平时怎么去上班？", "How do I get to work?"),
        slot="commute",
    ),
    Fact(
        "knee",
        "zh",
        "左膝盖的半月板有点撕裂，医生说暂时不用做手术，但是爬楼梯要注意。我们教学楼在五楼，"
        "每天爬得我怀疑人生",
        "半月板",
        _ask("我膝盖是什么毛病？", "What's wrong with my knee?"),
    ),
    Fact(
        "mum",
        "en",
        "Mum is 83 and still plays 麻将 every afternoon with the neighbours, she beat me three "
        "rounds in a row over Spring Festival, no mercy for her own daughter 😂",
        "麻将",
        _ask("我妈妈每天下午都干什么？", "What does my mum do every afternoon?"),
    ),
    Fact(
        "birthday",
        "zh",
        "我生日刚好是重阳节，小时候觉得好亏，没人给我单独过，现在反而觉得挺好，一天过两个节哈哈",
        "重阳",
        _ask("我生日是哪天？", "When's my birthday?"),
    ),
    Fact(
        "brother_restaurant",
        "zh",
        "我弟弟开的胖娃火锅这个月生意好得很，排队排到街角，他说等我退休了去帮他收银，我才不去，"
        "去了天天吃火锅我血压还要不要了",
        "胖娃",
        _ask("我弟弟开的火锅店叫什么？", "What's the name of my brother's hotpot place?"),
    ),
    Fact(
        "chillies",
        "en",
        "My balcony is basically a chilli farm now, 二荆条 everywhere, the neighbours get a bag "
        "whether they want one or not haha",
        "二荆条",
        _ask("我阳台上种的是什么辣椒？", "What kind of chilli do I grow on my balcony?"),
    ),
    Fact(
        "divorce",
        "en",
        "My ex and I divorced in 2009, the kids were 14 and 11. It was hard at the time but honestly "
        "we're both better off, we even send each other new year greetings now, imagine",
        "2009",
        _ask("我是哪一年离婚的？", "What year did I get divorced?"),
    ),
    Fact(
        "teaching_years",
        "en",
        "Counted it up today on the back of a register: 32 years standing in front of a blackboard. "
        "Probably half my lungs are chalk dust by now lol",
        "32 years",
        _ask("我教书教了多少年了？", "How many years have I been teaching?"),
    ),
    Fact(
        "singer",
        "zh",
        "改作文的时候一定要放邓丽君，不然我脾气压不住，看到一个错别字就想拍桌子😂",
        "邓丽君",
        _ask("我最喜欢听谁的歌？", "Who's my favourite singer?"),
    ),
    Fact(
        "choir",
        "en",
        "When I'm over in Manchester I go along to the Levenshulme community choir on Thursdays, "
        "lots of retired folk, very kind. They've talked me into singing a Chinese folk song solo "
        "next month, help!!",
        "Levenshulme",
        _ask("我在曼城参加的合唱团在哪个区？", "Which community choir do I sing with in Manchester?"),
    ),
    Fact(
        "camera",
        "en",
        "Treated myself to a second-hand Fujifilm X-T30, I want proper photos of the little one "
        "before she grows up too fast. Now I just need to read the manual, it's thicker than a textbook",
        "X-T30",
        _ask("我买的是什么相机？", "What camera did I buy?"),
    ),
    Fact(
        "sleep_aid",
        "zh",
        "最近又睡不着，三点钟醒了就盯着天花板发呆，女儿从英国寄了褪黑素过来，吃了好像还有点用",
        "褪黑素",
        _ask("我睡不着的时候吃什么？", "What do I take when I can't sleep?"),
    ),
    Fact(
        "alma_mater",
        "zh",
        "我们川师84级的同学群今天又吵起来了，为了一张毕业照上谁站中间，几十岁的人了还这样😂",
        "川师",
        _ask("我大学是在哪里读的？", "Where did I go to university?"),
    ),
    Fact(
        "flight_route",
        "en",
        "Booked my summer flights! I always go via Helsinki, the transfer's short and the airport "
        "has those nice wooden chairs. I refuse to do a 12 hour layover at my age",
        "Helsinki",
        _ask("我去英国一般在哪儿转机？", "Where do I usually change planes on the way to the UK?"),
    ),
    Fact(
        "blood_type",
        "zh",
        "献血车今天开到学校门口了，我是O型，护士说O型的血最缺，我就又撸起袖子献了一次，应该是第十几次了吧",
        "O型",
        _ask("我是什么血型？", "What's my blood type?"),
    ),
    Fact(
        "daughter_dog",
        "en",
        "My daughter's dog Biscuit ate one of my slippers last visit. A WHOLE slipper. Tom says "
        "it means he loves me. Funny way of showing it",
        "Biscuit",
        _ask("我女儿家的狗叫什么？", "What's the name of my daughter's dog?"),
    ),
    Fact(
        "volunteering",
        "en",
        "Saturdays in Manchester I do a shift at the Oxfam shop on the high street, sorting donated "
        "clothes. You wouldn't believe what people give away, found a cashmere coat last week!",
        "Oxfam",
        _ask("我在英国周六去哪家慈善店做义工？", "Which charity shop do I volunteer at?"),
    ),
    Fact(
        "glasses",
        "zh",
        "老花眼又加深了，现在250度，学生的作业本要拿得老远老远才看得清，他们笑我像在看报纸的老大爷",
        "250度",
        _ask("我的老花镜多少度？", "What's my reading glasses prescription?"),
    ),
    Fact(
        "coriander",
        "en",
        "Ugh, the canteen put 香菜 on everything again today. I will never understand people who "
        "like it, tastes like soap to me",
        "香菜",
        _ask("我最讨厌吃什么？", "Which herb can't I stand?"),
    ),
    Fact(
        "famous_student",
        "zh",
        "跟你炫耀一下，我以前教过的一个女生现在是央视的记者，今天在新闻里看到她了，"
        "我激动得拿给全办公室的人看",
        "央视",
        _ask("我有个学生现在在哪家电视台工作？", "Which TV network does my former student work for?"),
    ),
    Fact(
        "walk_spot",
        "zh",
        "晚饭后散步我还是最喜欢去浣花溪，绕一圈刚好六千步，偶尔还能碰到以前学生的家长，聊着聊着天就黑了",
        "浣花溪",
        _ask("我晚饭后一般去哪里散步？", "Where do I like to go for my evening walk?"),
    ),
    Fact(
        "dad",
        "en",
        "My dad drove trains on the 成昆 line for thirty years, he used to bring us walnuts back from "
        "the mountains. I still think of him every time I get on a train",
        "成昆",
        _ask("我爸爸以前在哪条铁路线上开火车？", "Which railway line did my dad drive trains on?"),
    ),
    Fact(
        "visa",
        "en",
        "Good news!! Got my 10-year visa for the UK, no more filling in those endless forms every "
        "single year 🎉🎉",
        "10-year visa",
        _ask("我拿到的英国签证是几年的？", "How long is my UK visa valid for?"),
    ),
    Fact(
        "teeth",
        "zh",
        "今天去做了种植牙，两颗，花了我小两万，麻药过了以后脸肿得像个包子，晚饭只能喝稀饭",
        "种植牙",
        _ask("我最近去牙医那里做了什么？", "What did I have done at the dentist recently?"),
    ),
)

_UPDATES = (
    Update(
        "home",
        "en",
        "Well, it's official, I'm a Mancunian now 😂 Finally got the keys to a little terrace house "
        "in Didsbury, ten minutes' walk from my daughter. The flat back in Chengdu is rented out to "
        "a sweet young couple, they promised to water my plants",
        "Didsbury",
        _ask("我现在住在哪里？", "Where am I living these days?"),
    ),
    Update(
        "job",
        "zh",
        "退休手续总算办完了，结果在家闲了两个礼拜就闲不住了😂 在这边一个周末中文学校找了份兼职，"
        "叫Red Panda Chinese School，教一群华裔小朋友拼音，比教高中生累多了，他们上课会爬桌子",
        "Red Panda",
        _ask("我现在做的是什么工作？", "What's my job now?"),
    ),
    Update(
        "phone",
        "zh",
        "那个华为终于寿终正寝了，被外孙女扔进了洗澡盆😭 女婿把他换下来的iPhone 13给了我，"
        "用了一个礼拜还是找不到设置在哪",
        "iPhone 13",
        _ask("我现在用什么手机？", "What phone do I have now?"),
    ),
    Update(
        "favourite_food",
        "zh",
        "我宣布：我现在最爱吃的是约克郡布丁！亲家公每个礼拜天都烤一盘，外面脆里面软，"
        "热乎乎的……对不起了成都的各位老朋友，我变心了",
        "约克郡布丁",
        _ask("我现在最喜欢吃什么？", "What's my favourite food now?"),
    ),
    Update(
        "diet",
        "en",
        "Update on the food front: I've gone pescatarian! Partly the blood sugar, partly because the "
        "fish man at the market here is such a charmer lol. No meat since spring and I don't even miss it",
        "pescatarian",
        _ask("我现在的饮食是什么类型？", "What diet am I following now?"),
    ),
    Update(
        "car",
        "en",
        "Sold the old car back home to my neighbour's son, and over here I've bought a little "
        "second-hand Honda Jazz, silver. Driving on the left is terrifying, I talk to myself at "
        "every roundabout",
        "Honda Jazz",
        _ask("我现在开什么车？", "What car am I driving now?"),
    ),
    Update(
        "partner",
        "zh",
        "跟你说个事，我跟那个英国老头和平分手了，没什么狗血的，就是他不想去中国、我也不想一直待英国。"
        "现在嘛……在合唱团认识了一个四川老乡，叫罗德明，退休的桥梁工程师，做饭比我还好吃😳",
        "罗德明",
        _ask("我现在的另一半叫什么？", "Who's my partner now?"),
    ),
    Update(
        "favourite_drink",
        "en",
        "Never thought I'd say this but my favourite drink now is hot Vimto. Tom made me a mug when "
        "I had that awful cold and that was it, I'm hooked. The tea purists back home would disown me",
        "Vimto",
        _ask("我现在最爱喝什么？", "What's my favourite drink these days?"),
    ),
    Update(
        "team",
        "zh",
        "好了，我正式叛变了⚽ 跟德明去Etihad看了一场，气氛太好了，现在我是Man City的球迷！"
        "老家的球队我还是会看看比分，但心已经是天蓝色的了💙",
        "Man City",
        _ask("我现在支持哪支球队？", "Which team do I support now?"),
    ),
    Update(
        "instrument",
        "en",
        "Confession, I've given up the zither... the big one didn't fit in my suitcase anyway lol. "
        "Learning the ukulele now at the library on Wednesdays, four little strings, much kinder "
        "to an old lady's fingers",
        "ukulele",
        _ask("我现在在学什么乐器？", "What instrument am I learning now?"),
    ),
    Update(
        "computer",
        "zh",
        "儿子实在看不下去我那台老掉牙的电脑了，从深圳给我寄了一台MacBook Air，"
        "轻得我以为盒子是空的😂 就是触控板还用不惯，老是点错",
        "MacBook Air",
        _ask("我现在用的是什么电脑？", "What laptop am I on now?"),
    ),
    Update(
        "commute",
        "zh",
        "现在去中文学校上课都坐Metrolink，家门口上车二十分钟到市中心，终于不用骑车淋雨了，"
        "虽然这边的雨一点都不比成都少🌧",
        "Metrolink",
        _ask("我现在怎么去上班？", "How do I get to work now?"),
    ),
    Update(
        "home",
        "en",
        "Moved AGAIN, can you believe it! Demin and I found a flat in Chorlton together, near the "
        "water park, so goodbye little terrace. Boxes everywhere and I've lost the kettle, "
        "which in this country is a national emergency",
        "Chorlton",
        _ask("我现在住在哪儿？", "Where do I live now?"),
    ),
    Update(
        "job",
        "en",
        "Left the Saturday school in the end, the little ones were wearing me out. Guess what I do "
        "now — I'm a part-time guide at the Whitworth gallery! Three days a week, showing visitors "
        "round and telling them all about the textiles",
        "Whitworth",
        _ask("我现在在哪里上班？", "Where do I work these days?"),
    ),
    Update(
        "phone",
        "zh",
        "那个旧苹果手机电池彻底不行了，我还是换回安卓吧，买了个小米14，拍照好看，"
        "字可以调得大大的，对老花眼很友好👓",
        "小米14",
        _ask("我现在的手机是什么牌子型号？", "What's my current phone?"),
    ),
    Update(
        "diet",
        "en",
        "Okay new regime: the GP suggested 轻断食, the 16:8 thing, so I only eat between 10 and 6 now. "
        "Meat's back on the menu too, Demin is thrilled, he's been dying to make me his braised pork",
        "轻断食",
        _ask("我现在用什么方式控制饮食？", "What eating plan am I on now?"),
    ),
)

_NON_UPDATES = (
    # third_person
    NonUpdate(
        "third_person",
        "zh",
        "隔壁王阿姨的女婿买了辆理想L9，天天停在楼下，小区里的老头老太太都围着看，跟看熊猫一样",
        "car",
    ),
    NonUpdate(
        "third_person",
        "zh",
        "我妹妹一家搬到杭州去了，说那边空气好，房子也便宜点，她天天发西湖的照片馋我",
        "home",
    ),
    NonUpdate(
        "third_person", "zh", "我们年级组长被调去教育局当科员了，大家都说她是去享福了，我看未必", "job"
    ),
    NonUpdate(
        "third_person",
        "en",
        "My brother just got one of those folding Samsungs, he keeps opening and closing it "
        "like a toy, drives me mad 🙄",
        "phone",
    ),
    NonUpdate(
        "third_person",
        "en",
        "My son's gone full keto, he sends me photos of bacon and eggs for breakfast every "
        "single day like it's an achievement",
        "diet",
    ),
    NonUpdate(
        "third_person",
        "en",
        "Tom's a die-hard United fan, so there's a LOT of shouting in that house on derby day, "
        "the dog hides under the table",
        "team",
    ),
    # negation
    NonUpdate("negation", "zh", "我从来没在北京住过哦，你是不是记错了，我只是去那边开过一次教研会", "home"),
    NonUpdate(
        "negation", "zh", "钢琴我是真没学过，小时候家里哪买得起钢琴，能有台收音机就不错了", "instrument"
    ),
    NonUpdate("negation", "zh", "我可没买宝马啊，那是我弟弟瞎说的，他喝了二两酒什么都敢讲", "car"),
    NonUpdate(
        "negation",
        "en",
        "No no no, I'm NOT seeing the retired headmaster from church, the aunties just love "
        "a bit of gossip 😂",
        "partner",
    ),
    NonUpdate(
        "negation",
        "en",
        "I don't drink coffee, never have, one cup and my heart races like I've run a marathon",
        "favourite_drink",
    ),
    NonUpdate(
        "negation",
        "en",
        "I've never cycled to work over here and I never will, have you seen those lorries?",
        "commute",
    ),
    # hypothetical
    NonUpdate("hypothetical", "zh", "要是我住在大理就好了，天天晒太阳，哪像这边一年到头都阴着个脸", "home"),
    NonUpdate(
        "hypothetical", "zh", "如果当年我去当了翻译而不是当老师，现在是不是就不会这么多白头发了", "job"
    ),
    NonUpdate(
        "hypothetical", "zh", "假如我有台游戏本，是不是就能跟孩子们一起打游戏了哈哈，想想就好笑", "computer"
    ),
    NonUpdate(
        "hypothetical",
        "en",
        "If I had a Tesla I'd probably never go anywhere, I'd just sit in the driveway playing "
        "with the big screen",
        "car",
    ),
    NonUpdate(
        "hypothetical",
        "en",
        "If I could only eat one thing for the rest of my life... dumplings maybe? No, I'd get "
        "bored in a week",
        "favourite_food",
    ),
    NonUpdate(
        "hypothetical",
        "en",
        "If I were twenty again I'd apply to Cambridge just to see the look on my old teachers' faces",
        "school",
    ),
    # question
    NonUpdate("question", "zh", "你说我该不该换个vivo？听说老人模式做得好，字大", "phone"),
    NonUpdate("question", "zh", "二胡难不难学啊？我看公园里好多大爷拉得挺好听的", "instrument"),
    NonUpdate("question", "zh", "生酮饮食到底靠不靠谱啊？隔壁班的老师说她一个月瘦了十斤", "diet"),
    NonUpdate(
        "question",
        "en",
        "Is a Chromebook good enough for emails and video calls? Asking for a friend (the friend is me lol)",
        "computer",
    ),
    NonUpdate(
        "question", "en", "Who do you reckon will win the league this year, Arsenal or Liverpool?", "team"
    ),
    NonUpdate(
        "question",
        "en",
        "Would it be quicker to get the bus or the train into town on a Saturday morning?",
        "commute",
    ),
    # plan
    NonUpdate("plan", "zh", "打算明年开始吃素试试看，不过我估计坚持不了三天就要去啃排骨了", "diet"),
    NonUpdate("plan", "zh", "我们在商量以后冬天要不要去海南住几个月，像候鸟一样，还没定下来", "home"),
    NonUpdate(
        "plan", "zh", "想着下个月开始少喝点浓茶，多喝白开水，医生说我的茶泡得太酽了", "favourite_drink"
    ),
    NonUpdate(
        "plan",
        "en",
        "Thinking about getting an electric car next year, maybe a little MG, once I work out "
        "where on earth I'd charge it",
        "car",
    ),
    NonUpdate(
        "plan",
        "en",
        "I might pick up the violin once things calm down, there's a beginners' group at the "
        "community centre on Mondays",
        "instrument",
    ),
    NonUpdate(
        "plan",
        "en",
        "Planning to do a bit of private tutoring later on, IELTS prep maybe, keep the brain ticking over",
        "job",
    ),
)

TEACHER = Script(_FACTS, _UPDATES, _NON_UPDATES)
