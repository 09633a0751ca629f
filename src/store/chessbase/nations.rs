//! ChessBase's nation numbers: one byte names a country (a tournament's, a team's), shown
//! as its three-letter code (IOC where it has one), as ChessBase's PGN export writes
//! EventCountry. The order is a fact of the format, as Yarin78/morphy's notes list it;
//! checked on the test base, whose tournaments' places end in the same codes.

/// The code of each nation number; 0 (and a number past the list) is none.
const CODES: [&str; 254] = [
    "", "AFG", "ALB", "ALG", "AND", "ANG", "ANT", "ARG", "ARM", "AUS", // 0–9
    "AUT", "AZE", "BAH", "BRN", "BAN", "BAR", "BLR", "BEL", "BIZ", "BER", // 10–19
    "BOL", "BIH", "BOT", "BRA", "IVB", "BRU", "BUL", "BUR", "CAN", "CHI", // 20–29
    "CHN", "COL", "CRC", "CRO", "CUB", "CYP", "CZE", "DEN", "DJI", "DOM", // 30–39
    "ECU", "EGY", "ENG", "ESP", "EST", "ETH", "FRO", "FIJ", "FIN", "FRA", // 40–49
    "MKD", "GAM", "GEO", "GER", "GHA", "GRE", "GUA", "GCI", "GUY", "HAI", // 50–59
    "HON", "HKG", "HUN", "ISL", "IND", "INA", "IRI", "IRQ", "ISR", "IRL", // 60–69
    "ITA", "CIV", "JAM", "JPN", "GCI", "JOR", "KAZ", "KEN", "KOR", "KGZ", // 70–79
    "KUW", "LAT", "LIB", "LBA", "LIE", "LTU", "LUX", "MAC", "MAD", "MAS", // 80–89
    "MLI", "MLT", "MTN", "MRI", "MEX", "MDA", "MON", "MGL", "MAR", "MOZ", // 90–99
    "MYA", "NAM", "NEP", "NED", "AHO", "NZL", "NCA", "NGR", "NOR", "PAK", // 100–109
    "PLE", "PAN", "PNG", "PAR", "PER", "PHI", "POL", "POR", "PUR", "QAT", // 110–119
    "ROU", "RUS", "ESA", "SMR", "SCO", "SEN", "SEY", "SIN", "SVK", "SLO", // 120–129
    "RSA", "SRI", "SUD", "SUR", "SWE", "SUI", "SYR", "TJK", "TAN", "THA", // 130–139
    "TTO", "TUN", "TUR", "TKM", "UGA", "UKR", "UAE", "USA", "URU", "URS", // 140–149
    "UZB", "VEN", "VIE", "ISV", "WLS", "YEM", "SCG", "ZAM", "ZIM", "ZAI", // 150–159
    "DDR", "TCH", "CMR", "CHA", "CPV", "KIR", "COM", "CGO", "PRK", "LAO", // 160–169
    "LES", "MAW", "MDV", "MHL", "OMA", "NRU", "MIC", "NIG", "KSA", "TOG", // 170–179
    "TGA", "VAN", "VAT", "TUV", "SWZ", "SLE", "LCA", "PAP", "SVI", "SAM", // 180–189
    "SKI", "SOL", "GE2", "ZAR", "RWA", "LBR", "NET", "TPE", "ASA", "AGG", // 190–199
    "ARU", "BEN", "BHU", "BDI", "CAM", "CAY", "CAF", "GCI", "CIA", "COA", // 200–209
    "COK", "GEQ", "ERI", "FGB", "FRG", "FRP", "GAB", "GGB", "GRN", "GRL", // 210–219
    "FGA", "GUM", "GUI", "GBS", "IOM", "JMY", "MFR", "MYF", "MSG", "NCF", // 220–229
    "NNN", "NNA", "NMI", "OTM", "PLW", "PIG", "RUF", "STP", "SOM", "SVN", // 230–239
    "HGB", "PGB", "TKI", "TCI", "WFR", "NIR", "ISS", "GBR", "SAA", "MNE", // 240–249
    "SRB", "CAT", "BAS", "KOS", // 250–253
];

/// The three-letter code of nation `number`, none for 0 or an unknown number.
pub(super) fn code(number: u8) -> Option<&'static str> {
    CODES
        .get(usize::from(number))
        .copied()
        .filter(|c| !c.is_empty())
}
