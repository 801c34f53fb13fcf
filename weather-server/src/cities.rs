//! The built-in table of world cities: name, country, coordinates, time zone and aliases.
//! Lookups are case-insensitive and match aliases (other spellings, local names).

use std::borrow::Cow;

/// One city of the built-in table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct City {
    /// The English name, as shown to users.
    pub name: &'static str,
    /// The country, in English.
    pub country: &'static str,
    /// Latitude in degrees, north positive.
    pub latitude: f64,
    /// Longitude in degrees, east positive.
    pub longitude: f64,
    /// The IANA time zone.
    pub time_zone: &'static str,
    /// The standard offset from UTC in hours (daylight saving is not modelled).
    pub utc_offset: f64,
    /// Other names the city is known by.
    pub aliases: &'static [&'static str],
}

const fn city(
    name: &'static str,
    country: &'static str,
    latitude: f64,
    longitude: f64,
    time_zone: &'static str,
    utc_offset: f64,
    aliases: &'static [&'static str],
) -> City {
    City {
        name,
        country,
        latitude,
        longitude,
        time_zone,
        utc_offset,
        aliases,
    }
}

/// Every city the embedded provider knows, sorted by name.
pub static CITIES: &[City] = &[
    city(
        "Abu Dhabi",
        "United Arab Emirates",
        24.45,
        54.38,
        "Asia/Dubai",
        4.0,
        &["أبو ظبي"],
    ),
    city("Accra", "Ghana", 5.60, -0.19, "Africa/Accra", 0.0, &[]),
    city(
        "Addis Ababa",
        "Ethiopia",
        9.03,
        38.74,
        "Africa/Addis_Ababa",
        3.0,
        &["Addis Abeba"],
    ),
    city(
        "Adelaide",
        "Australia",
        -34.93,
        138.60,
        "Australia/Adelaide",
        9.5,
        &[],
    ),
    city(
        "Almaty",
        "Kazakhstan",
        43.24,
        76.89,
        "Asia/Almaty",
        5.0,
        &["Alma-Ata"],
    ),
    city(
        "Amsterdam",
        "Netherlands",
        52.37,
        4.90,
        "Europe/Amsterdam",
        1.0,
        &[],
    ),
    city(
        "Anchorage",
        "United States",
        61.22,
        -149.90,
        "America/Anchorage",
        -9.0,
        &[],
    ),
    city(
        "Athens",
        "Greece",
        37.98,
        23.73,
        "Europe/Athens",
        2.0,
        &["Athina", "Αθήνα"],
    ),
    city(
        "Atlanta",
        "United States",
        33.75,
        -84.39,
        "America/New_York",
        -5.0,
        &[],
    ),
    city(
        "Auckland",
        "New Zealand",
        -36.85,
        174.76,
        "Pacific/Auckland",
        12.0,
        &[],
    ),
    city(
        "Baghdad",
        "Iraq",
        33.31,
        44.36,
        "Asia/Baghdad",
        3.0,
        &["بغداد"],
    ),
    city(
        "Bangalore",
        "India",
        12.97,
        77.59,
        "Asia/Kolkata",
        5.5,
        &["Bengaluru"],
    ),
    city(
        "Bangkok",
        "Thailand",
        13.76,
        100.50,
        "Asia/Bangkok",
        7.0,
        &["Krung Thep", "กรุงเทพมหานคร"],
    ),
    city("Barcelona", "Spain", 41.39, 2.17, "Europe/Madrid", 1.0, &[]),
    city(
        "Beijing",
        "China",
        39.90,
        116.41,
        "Asia/Shanghai",
        8.0,
        &["北京", "Peking", "Beijing Shi"],
    ),
    city(
        "Beirut",
        "Lebanon",
        33.89,
        35.50,
        "Asia/Beirut",
        2.0,
        &["بيروت"],
    ),
    city("Berlin", "Germany", 52.52, 13.40, "Europe/Berlin", 1.0, &[]),
    city(
        "Bogotá",
        "Colombia",
        4.71,
        -74.07,
        "America/Bogota",
        -5.0,
        &["Bogota"],
    ),
    city(
        "Boston",
        "United States",
        42.36,
        -71.06,
        "America/New_York",
        -5.0,
        &[],
    ),
    city(
        "Brasília",
        "Brazil",
        -15.79,
        -47.88,
        "America/Sao_Paulo",
        -3.0,
        &["Brasilia"],
    ),
    city(
        "Brussels",
        "Belgium",
        50.85,
        4.35,
        "Europe/Brussels",
        1.0,
        &["Bruxelles", "Brussel"],
    ),
    city(
        "Bucharest",
        "Romania",
        44.43,
        26.10,
        "Europe/Bucharest",
        2.0,
        &["București"],
    ),
    city(
        "Budapest",
        "Hungary",
        47.50,
        19.04,
        "Europe/Budapest",
        1.0,
        &[],
    ),
    city(
        "Buenos Aires",
        "Argentina",
        -34.60,
        -58.38,
        "America/Argentina/Buenos_Aires",
        -3.0,
        &[],
    ),
    city(
        "Cairo",
        "Egypt",
        30.04,
        31.24,
        "Africa/Cairo",
        2.0,
        &["القاهرة", "Al Qahirah"],
    ),
    city(
        "Cape Town",
        "South Africa",
        -33.92,
        18.42,
        "Africa/Johannesburg",
        2.0,
        &["Kaapstad"],
    ),
    city(
        "Caracas",
        "Venezuela",
        10.48,
        -66.90,
        "America/Caracas",
        -4.0,
        &[],
    ),
    city(
        "Casablanca",
        "Morocco",
        33.57,
        -7.59,
        "Africa/Casablanca",
        1.0,
        &["الدار البيضاء"],
    ),
    city(
        "Chengdu",
        "China",
        30.57,
        104.07,
        "Asia/Shanghai",
        8.0,
        &["成都"],
    ),
    city(
        "Chennai",
        "India",
        13.08,
        80.27,
        "Asia/Kolkata",
        5.5,
        &["Madras"],
    ),
    city(
        "Chicago",
        "United States",
        41.88,
        -87.63,
        "America/Chicago",
        -6.0,
        &[],
    ),
    city(
        "Chongqing",
        "China",
        29.56,
        106.55,
        "Asia/Shanghai",
        8.0,
        &["重庆", "Chungking"],
    ),
    city(
        "Copenhagen",
        "Denmark",
        55.68,
        12.57,
        "Europe/Copenhagen",
        1.0,
        &["København"],
    ),
    city("Dakar", "Senegal", 14.72, -17.47, "Africa/Dakar", 0.0, &[]),
    city(
        "Dallas",
        "United States",
        32.78,
        -96.80,
        "America/Chicago",
        -6.0,
        &[],
    ),
    city(
        "Dar es Salaam",
        "Tanzania",
        -6.79,
        39.21,
        "Africa/Dar_es_Salaam",
        3.0,
        &[],
    ),
    city(
        "Delhi",
        "India",
        28.70,
        77.10,
        "Asia/Kolkata",
        5.5,
        &["New Delhi", "दिल्ली"],
    ),
    city(
        "Denver",
        "United States",
        39.74,
        -104.99,
        "America/Denver",
        -7.0,
        &[],
    ),
    city(
        "Dhaka",
        "Bangladesh",
        23.81,
        90.41,
        "Asia/Dhaka",
        6.0,
        &["Dacca", "ঢাকা"],
    ),
    city(
        "Doha",
        "Qatar",
        25.29,
        51.53,
        "Asia/Qatar",
        3.0,
        &["الدوحة"],
    ),
    city(
        "Dubai",
        "United Arab Emirates",
        25.20,
        55.27,
        "Asia/Dubai",
        4.0,
        &["دبي"],
    ),
    city(
        "Dublin",
        "Ireland",
        53.35,
        -6.26,
        "Europe/Dublin",
        0.0,
        &["Baile Átha Cliath"],
    ),
    city(
        "Edinburgh",
        "United Kingdom",
        55.95,
        -3.19,
        "Europe/London",
        0.0,
        &[],
    ),
    city(
        "Frankfurt",
        "Germany",
        50.11,
        8.68,
        "Europe/Berlin",
        1.0,
        &["Frankfurt am Main"],
    ),
    city(
        "Guangzhou",
        "China",
        23.13,
        113.26,
        "Asia/Shanghai",
        8.0,
        &["广州", "Canton"],
    ),
    city(
        "Hanoi",
        "Vietnam",
        21.03,
        105.85,
        "Asia/Ho_Chi_Minh",
        7.0,
        &["Hà Nội"],
    ),
    city(
        "Havana",
        "Cuba",
        23.11,
        -82.37,
        "America/Havana",
        -5.0,
        &["La Habana"],
    ),
    city(
        "Helsinki",
        "Finland",
        60.17,
        24.94,
        "Europe/Helsinki",
        2.0,
        &["Helsingfors"],
    ),
    city(
        "Ho Chi Minh City",
        "Vietnam",
        10.82,
        106.63,
        "Asia/Ho_Chi_Minh",
        7.0,
        &["Saigon", "Thành phố Hồ Chí Minh"],
    ),
    city(
        "Hong Kong",
        "China",
        22.32,
        114.17,
        "Asia/Hong_Kong",
        8.0,
        &["香港", "Xianggang"],
    ),
    city(
        "Honolulu",
        "United States",
        21.31,
        -157.86,
        "Pacific/Honolulu",
        -10.0,
        &[],
    ),
    city(
        "Houston",
        "United States",
        29.76,
        -95.37,
        "America/Chicago",
        -6.0,
        &[],
    ),
    city(
        "Istanbul",
        "Türkiye",
        41.01,
        28.98,
        "Europe/Istanbul",
        3.0,
        &["İstanbul", "Constantinople"],
    ),
    city(
        "Jakarta",
        "Indonesia",
        -6.21,
        106.85,
        "Asia/Jakarta",
        7.0,
        &[],
    ),
    city(
        "Jerusalem",
        "Israel",
        31.77,
        35.21,
        "Asia/Jerusalem",
        2.0,
        &["ירושלים", "القدس"],
    ),
    city(
        "Johannesburg",
        "South Africa",
        -26.20,
        28.05,
        "Africa/Johannesburg",
        2.0,
        &["Joburg"],
    ),
    city("Kabul", "Afghanistan", 34.56, 69.21, "Asia/Kabul", 4.5, &[]),
    city(
        "Karachi",
        "Pakistan",
        24.86,
        67.01,
        "Asia/Karachi",
        5.0,
        &["کراچی"],
    ),
    city(
        "Kathmandu",
        "Nepal",
        27.72,
        85.32,
        "Asia/Kathmandu",
        5.75,
        &[],
    ),
    city(
        "Khartoum",
        "Sudan",
        15.50,
        32.56,
        "Africa/Khartoum",
        2.0,
        &[],
    ),
    city(
        "Kinshasa",
        "DR Congo",
        -4.44,
        15.27,
        "Africa/Kinshasa",
        1.0,
        &[],
    ),
    city(
        "Kolkata",
        "India",
        22.57,
        88.36,
        "Asia/Kolkata",
        5.5,
        &["Calcutta"],
    ),
    city(
        "Kuala Lumpur",
        "Malaysia",
        3.139,
        101.69,
        "Asia/Kuala_Lumpur",
        8.0,
        &["KL"],
    ),
    city(
        "Kyiv",
        "Ukraine",
        50.45,
        30.52,
        "Europe/Kyiv",
        2.0,
        &["Kiev", "Київ"],
    ),
    city("Lagos", "Nigeria", 6.52, 3.38, "Africa/Lagos", 1.0, &[]),
    city("Lahore", "Pakistan", 31.55, 74.34, "Asia/Karachi", 5.0, &[]),
    city(
        "Las Vegas",
        "United States",
        36.17,
        -115.14,
        "America/Los_Angeles",
        -8.0,
        &[],
    ),
    city("Lima", "Peru", -12.05, -77.04, "America/Lima", -5.0, &[]),
    city(
        "Lisbon",
        "Portugal",
        38.72,
        -9.14,
        "Europe/Lisbon",
        0.0,
        &["Lisboa"],
    ),
    city(
        "London",
        "United Kingdom",
        51.51,
        -0.13,
        "Europe/London",
        0.0,
        &["Londres", "伦敦"],
    ),
    city(
        "Los Angeles",
        "United States",
        34.05,
        -118.24,
        "America/Los_Angeles",
        -8.0,
        &["LA"],
    ),
    city("Madrid", "Spain", 40.42, -3.70, "Europe/Madrid", 1.0, &[]),
    city(
        "Manila",
        "Philippines",
        14.60,
        120.98,
        "Asia/Manila",
        8.0,
        &["Maynila"],
    ),
    city(
        "Melbourne",
        "Australia",
        -37.81,
        144.96,
        "Australia/Melbourne",
        10.0,
        &[],
    ),
    city(
        "Mexico City",
        "Mexico",
        19.43,
        -99.13,
        "America/Mexico_City",
        -6.0,
        &["Ciudad de México", "CDMX"],
    ),
    city(
        "Miami",
        "United States",
        25.76,
        -80.19,
        "America/New_York",
        -5.0,
        &[],
    ),
    city(
        "Milan",
        "Italy",
        45.46,
        9.19,
        "Europe/Rome",
        1.0,
        &["Milano"],
    ),
    city(
        "Montevideo",
        "Uruguay",
        -34.90,
        -56.16,
        "America/Montevideo",
        -3.0,
        &[],
    ),
    city(
        "Montreal",
        "Canada",
        45.50,
        -73.57,
        "America/Toronto",
        -5.0,
        &["Montréal"],
    ),
    city(
        "Moscow",
        "Russia",
        55.76,
        37.62,
        "Europe/Moscow",
        3.0,
        &["Moskva", "Москва"],
    ),
    city(
        "Mumbai",
        "India",
        19.08,
        72.88,
        "Asia/Kolkata",
        5.5,
        &["Bombay"],
    ),
    city(
        "Munich",
        "Germany",
        48.14,
        11.58,
        "Europe/Berlin",
        1.0,
        &["München"],
    ),
    city("Nairobi", "Kenya", -1.29, 36.82, "Africa/Nairobi", 3.0, &[]),
    city(
        "New York",
        "United States",
        40.71,
        -74.01,
        "America/New_York",
        -5.0,
        &["New York City", "NYC", "纽约"],
    ),
    city(
        "Osaka",
        "Japan",
        34.69,
        135.50,
        "Asia/Tokyo",
        9.0,
        &["大阪"],
    ),
    city("Oslo", "Norway", 59.91, 10.75, "Europe/Oslo", 1.0, &[]),
    city(
        "Ottawa",
        "Canada",
        45.42,
        -75.70,
        "America/Toronto",
        -5.0,
        &[],
    ),
    city(
        "Paris",
        "France",
        48.86,
        2.35,
        "Europe/Paris",
        1.0,
        &["巴黎"],
    ),
    city(
        "Perth",
        "Australia",
        -31.95,
        115.86,
        "Australia/Perth",
        8.0,
        &[],
    ),
    city(
        "Phoenix",
        "United States",
        33.45,
        -112.07,
        "America/Phoenix",
        -7.0,
        &[],
    ),
    city(
        "Prague",
        "Czechia",
        50.08,
        14.44,
        "Europe/Prague",
        1.0,
        &["Praha"],
    ),
    city(
        "Quito",
        "Ecuador",
        -0.18,
        -78.47,
        "America/Guayaquil",
        -5.0,
        &[],
    ),
    city(
        "Reykjavík",
        "Iceland",
        64.15,
        -21.94,
        "Atlantic/Reykjavik",
        0.0,
        &["Reykjavik"],
    ),
    city("Riga", "Latvia", 56.95, 24.11, "Europe/Riga", 2.0, &[]),
    city(
        "Rio de Janeiro",
        "Brazil",
        -22.91,
        -43.17,
        "America/Sao_Paulo",
        -3.0,
        &["Rio"],
    ),
    city(
        "Riyadh",
        "Saudi Arabia",
        24.71,
        46.68,
        "Asia/Riyadh",
        3.0,
        &["الرياض"],
    ),
    city("Rome", "Italy", 41.90, 12.50, "Europe/Rome", 1.0, &["Roma"]),
    city(
        "San Francisco",
        "United States",
        37.77,
        -122.42,
        "America/Los_Angeles",
        -8.0,
        &["SF"],
    ),
    city(
        "Santiago",
        "Chile",
        -33.45,
        -70.67,
        "America/Santiago",
        -4.0,
        &["Santiago de Chile"],
    ),
    city(
        "São Paulo",
        "Brazil",
        -23.55,
        -46.63,
        "America/Sao_Paulo",
        -3.0,
        &["Sao Paulo"],
    ),
    city(
        "Seattle",
        "United States",
        47.61,
        -122.33,
        "America/Los_Angeles",
        -8.0,
        &[],
    ),
    city(
        "Seoul",
        "South Korea",
        37.57,
        126.98,
        "Asia/Seoul",
        9.0,
        &["서울", "首尔"],
    ),
    city(
        "Shanghai",
        "China",
        31.23,
        121.47,
        "Asia/Shanghai",
        8.0,
        &["上海"],
    ),
    city(
        "Shenzhen",
        "China",
        22.54,
        114.06,
        "Asia/Shanghai",
        8.0,
        &["深圳"],
    ),
    city(
        "Singapore",
        "Singapore",
        1.35,
        103.82,
        "Asia/Singapore",
        8.0,
        &["新加坡"],
    ),
    city(
        "Springfield, Illinois",
        "United States",
        39.80,
        -89.64,
        "America/Chicago",
        -6.0,
        &["Springfield IL"],
    ),
    city(
        "Springfield, Massachusetts",
        "United States",
        42.10,
        -72.59,
        "America/New_York",
        -5.0,
        &["Springfield MA"],
    ),
    city(
        "Springfield, Missouri",
        "United States",
        37.21,
        -93.29,
        "America/Chicago",
        -6.0,
        &["Springfield MO"],
    ),
    city(
        "Stockholm",
        "Sweden",
        59.33,
        18.07,
        "Europe/Stockholm",
        1.0,
        &[],
    ),
    city(
        "Sydney",
        "Australia",
        -33.87,
        151.21,
        "Australia/Sydney",
        10.0,
        &["悉尼"],
    ),
    city(
        "Taipei",
        "Taiwan",
        25.03,
        121.57,
        "Asia/Taipei",
        8.0,
        &["台北", "臺北"],
    ),
    city(
        "Tashkent",
        "Uzbekistan",
        41.30,
        69.24,
        "Asia/Tashkent",
        5.0,
        &["Toshkent"],
    ),
    city(
        "Tehran",
        "Iran",
        35.69,
        51.39,
        "Asia/Tehran",
        3.5,
        &["تهران"],
    ),
    city(
        "Tel Aviv",
        "Israel",
        32.09,
        34.78,
        "Asia/Jerusalem",
        2.0,
        &["תל אביב"],
    ),
    city(
        "Tokyo",
        "Japan",
        35.68,
        139.69,
        "Asia/Tokyo",
        9.0,
        &["東京", "东京", "Tōkyō"],
    ),
    city(
        "Toronto",
        "Canada",
        43.65,
        -79.38,
        "America/Toronto",
        -5.0,
        &[],
    ),
    city(
        "Tunis",
        "Tunisia",
        36.81,
        10.18,
        "Africa/Tunis",
        1.0,
        &["تونس"],
    ),
    city(
        "Ulaanbaatar",
        "Mongolia",
        47.89,
        106.91,
        "Asia/Ulaanbaatar",
        8.0,
        &["Ulan Bator", "Улаанбаатар"],
    ),
    city(
        "Vancouver",
        "Canada",
        49.28,
        -123.12,
        "America/Vancouver",
        -8.0,
        &[],
    ),
    city(
        "Vienna",
        "Austria",
        48.21,
        16.37,
        "Europe/Vienna",
        1.0,
        &["Wien"],
    ),
    city(
        "Warsaw",
        "Poland",
        52.23,
        21.01,
        "Europe/Warsaw",
        1.0,
        &["Warszawa"],
    ),
    city(
        "Washington",
        "United States",
        38.91,
        -77.04,
        "America/New_York",
        -5.0,
        &["Washington, D.C.", "Washington DC"],
    ),
    city(
        "Wellington",
        "New Zealand",
        -41.29,
        174.78,
        "Pacific/Auckland",
        12.0,
        &[],
    ),
    city(
        "Wuhan",
        "China",
        30.59,
        114.31,
        "Asia/Shanghai",
        8.0,
        &["武汉"],
    ),
    city(
        "Xi'an",
        "China",
        34.34,
        108.94,
        "Asia/Shanghai",
        8.0,
        &["西安", "Xian"],
    ),
    city(
        "Yangon",
        "Myanmar",
        16.84,
        96.17,
        "Asia/Yangon",
        6.5,
        &["Rangoon"],
    ),
    city(
        "Zurich",
        "Switzerland",
        47.38,
        8.54,
        "Europe/Zurich",
        1.0,
        &["Zürich"],
    ),
];

/// Folds a name for matching: lower case, accents of Latin letters removed, separators dropped.
pub fn fold(name: &str) -> String {
    name.chars()
        .flat_map(char::to_lowercase)
        .map(fold_accent)
        .filter(|c| !matches!(c, ' ' | '-' | '\'' | '.' | ',' | '_'))
        .collect()
}

/// Every folded name and alias, built once: a lookup folds the query and hashes it.
fn index() -> &'static std::collections::HashMap<String, &'static City> {
    static INDEX: std::sync::OnceLock<std::collections::HashMap<String, &'static City>> =
        std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = std::collections::HashMap::new();
        for city in CITIES {
            for name in std::iter::once(city.name).chain(city.aliases.iter().copied()) {
                index.entry(fold(name)).or_insert(city);
            }
        }
        index
    })
}

/// The name as a URI path segment: lower case, accents removed, words joined by dashes, other
/// punctuation dropped (`São Paulo` → `sao-paulo`, `Xi'an` → `xian`). It folds to the same
/// text as the name, so [`find`] reads it back.
pub fn slug(name: &str) -> String {
    name.chars()
        .flat_map(char::to_lowercase)
        .map(fold_accent)
        .filter(|c| !matches!(c, '\'' | '.' | ',' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn fold_accent(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' => 'a',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'í' | 'ì' | 'î' | 'ï' | 'ı' => 'i',
        'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'ō' => 'o',
        'ú' | 'ù' | 'û' | 'ü' => 'u',
        'ç' => 'c',
        'ñ' => 'n',
        'ș' | 'ş' => 's',
        'ț' => 't',
        other => other,
    }
}

/// The longest name (in UTF-8 bytes) worth looking up: every known name and alias is far shorter.
/// Callers refuse longer input before searching, since the spelling search costs time in
/// proportion to the length of what it is given.
pub const MAX_NAME_BYTES: usize = 200;

/// The longest name folded on the stack; longer ones are folded into a new string.
const SHORT_NAME: usize = 48;

/// [`fold`]`(name)`, without allocating for the usual name: one of plain ASCII letters and
/// digits ("Shenzhen", "shenzhen") folds to itself in lower case, written into `buf`.
fn fold_short<'b>(name: &str, buf: &'b mut [u8; SHORT_NAME]) -> Cow<'b, str> {
    if let Some(key) = buf.get_mut(..name.len()) {
        if name.bytes().all(|b| b.is_ascii_alphanumeric()) {
            key.copy_from_slice(name.as_bytes());
            key.make_ascii_lowercase();
            // ASCII only, so always UTF-8.
            if let Ok(key) = std::str::from_utf8(key) {
                return Cow::Borrowed(key);
            }
        }
    }
    Cow::Owned(fold(name))
}

/// Finds a city by name or alias, ignoring case, accents, spaces and punctuation.
pub fn find(name: &str) -> Option<&'static City> {
    let mut buf = [0; SHORT_NAME];
    index()
        .get(fold_short(name.trim(), &mut buf).as_ref())
        .copied()
}

/// Names that mean several known cities, folded, with the cities they may mean.
static AMBIGUOUS: &[(&str, &[&str])] = &[(
    "springfield",
    &[
        "Springfield, Illinois",
        "Springfield, Massachusetts",
        "Springfield, Missouri",
    ],
)];

/// The cities an ambiguous name may mean (`Springfield`), or `None` when it means at most one.
pub fn ambiguous(name: &str) -> Option<Vec<&'static City>> {
    if name.len() > MAX_NAME_BYTES {
        return None;
    }
    let mut buf = [0; SHORT_NAME];
    let wanted = fold_short(name.trim(), &mut buf);
    let (_, names) = AMBIGUOUS.iter().find(|(folded, _)| *folded == wanted)?;
    Some(names.iter().filter_map(|n| find(n)).collect())
}

/// The known cities closest in spelling to `name`, best first (for "did you mean").
pub fn closest(name: &str, count: usize) -> Vec<&'static City> {
    if name.len() > MAX_NAME_BYTES {
        return Vec::new();
    }
    let wanted = fold(name.trim());
    let mut scored: Vec<(usize, &'static City)> = CITIES
        .iter()
        .map(|c| {
            let best = std::iter::once(c.name)
                .chain(c.aliases.iter().copied())
                .map(|n| edit_distance(&wanted, &fold(n)))
                .min()
                .unwrap_or(usize::MAX);
            (best, c)
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.name.cmp(b.1.name)));
    scored.into_iter().take(count).map(|(_, c)| c).collect()
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == *cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_a_hundred_unique_cities_sorted() {
        assert!(CITIES.len() >= 100, "{}", CITIES.len());
        for pair in CITIES.windows(2) {
            assert!(
                fold(pair[0].name) < fold(pair[1].name),
                "{} before {}",
                pair[0].name,
                pair[1].name
            );
        }
        for c in CITIES {
            assert!(
                (-90.0..=90.0).contains(&c.latitude) && (-180.0..=180.0).contains(&c.longitude),
                "{}",
                c.name
            );
            assert!((-12.0..=14.0).contains(&c.utc_offset), "{}", c.name);
        }
    }

    #[test]
    fn names_and_aliases_match_case_insensitively() {
        assert_eq!(find("shenzhen").map(|c| c.name), Some("Shenzhen"));
        assert_eq!(find("SHENZHEN").map(|c| c.name), Some("Shenzhen"));
        assert_eq!(find("深圳").map(|c| c.name), Some("Shenzhen"));
        assert_eq!(find("北京").map(|c| c.name), Some("Beijing"));
        assert_eq!(find("上海").map(|c| c.name), Some("Shanghai"));
        assert_eq!(find("sao paulo").map(|c| c.name), Some("São Paulo"));
        assert_eq!(find("new-york").map(|c| c.name), Some("New York"));
        assert_eq!(find("Peking").map(|c| c.name), Some("Beijing"));
        assert_eq!(find("Atlantis"), None);
        // Longer than the folding buffer, with an exact name inside the spaces.
        let padded = format!("{}Tokyo{}", " ".repeat(40), " ".repeat(40));
        assert_eq!(find(&padded).map(|c| c.name), Some("Tokyo"));
        assert_eq!(find(&"Tokyo".repeat(20)), None);
        assert_eq!(find("  "), None);
    }

    #[test]
    fn every_slug_is_ascii_and_finds_its_city() {
        for c in CITIES {
            let slug = slug(c.name);
            assert!(
                slug.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{slug}"
            );
            assert_eq!(find(&slug.replace('-', " ")).map(|f| f.name), Some(c.name));
        }
        assert_eq!(slug("São Paulo"), "sao-paulo");
        assert_eq!(slug("Xi'an"), "xian");
    }

    #[test]
    fn every_name_fits_the_length_bound() {
        for c in CITIES {
            for name in std::iter::once(c.name).chain(c.aliases.iter().copied()) {
                assert!(name.len() * 4 < MAX_NAME_BYTES, "{name}");
            }
        }
        assert!(closest(&"x".repeat(MAX_NAME_BYTES + 1), 3).is_empty());
    }

    #[test]
    fn ambiguous_names_list_every_city_they_may_mean() {
        let springfields = ambiguous(" springfield ").unwrap_or_default();
        assert_eq!(springfields.len(), 3);
        assert!(springfields
            .iter()
            .all(|c| c.name.starts_with("Springfield, ")));
        assert!(ambiguous("Shenzhen").is_none());
        // Not plain ASCII letters: folded first, as before.
        assert_eq!(ambiguous("Spring-Field").map(|c| c.len()), Some(3));
        assert_eq!(ambiguous("SPRINGFÍELD").map(|c| c.len()), Some(3));
        assert!(find("Springfield").is_none());
        assert_eq!(
            find("springfield mo").map(|c| c.name),
            Some("Springfield, Missouri")
        );
    }

    #[test]
    fn closest_names_help_a_model_correct_itself() {
        let names: Vec<_> = closest("Shenzen", 3).iter().map(|c| c.name).collect();
        assert_eq!(names[0], "Shenzhen");
        let names: Vec<_> = closest("Pariss", 3).iter().map(|c| c.name).collect();
        assert_eq!(names[0], "Paris");
    }
}
