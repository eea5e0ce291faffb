//! Region colours: a categorical palette of 24 colours picked for distance (CIE76 ΔE ≥ 18
//! between any two, ≥ 20 from every colour the chart draws states, messages and overlays in),
//! then generated colours past it, assigned so that the regions of one trace never share one.
//!
//! A region prefers the palette slot its name hashes to, so a name keeps its colour from run to
//! run where the names around it allow; a taken slot passes it on to the next free one.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::scene::draw::colors;

/// The palette, the most distinct colours first.
pub const PALETTE: [&str; 24] = [
    "#1f77b4", "#f0e442", "#7f2704", "#00441b", "#e377c2", "#a1d99b", "#4a1486", "#ff7f0e",
    "#c49c94", "#17becf", "#2ca02c", "#525252", "#8c6d31", "#7b4173", "#6b6ecf", "#9e9ac8",
    "#8c564b", "#003f5c", "#637939", "#f7b6d2", "#56b4e9", "#dbdb8d", "#ad494a", "#7f7f7f",
];

/// How many distinct colours there are: the palette's and the generated ones after them.
pub const COLOURS: usize = 256;

/// The colours a region must stay clear of: states, messages, overlays and marks. The
/// scheduler's states (ready, timer, PAR branches, stopped) are left out: only the emulator
/// records them, and its traces have no regions.
pub const RESERVED: [&str; 12] = [
    colors::COMPUTING,
    colors::BLOCKED,
    colors::MESSAGE,
    colors::FAULT,
    colors::PATH,
    colors::WAIT,
    colors::SELECTED,
    colors::SELECTION_EDGE,
    colors::REPLAY,
    colors::FILTERED,
    colors::GRID,
    "#ffffff",
];

/// The least CIE76 distance a colour keeps from the reserved ones.
pub const MIN_RESERVED_DISTANCE: f64 = 20.0;

/// FNV-1a of a name.
fn hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The colour of a name on its own (a WCPA phase, a legend entry): its hashed palette slot.
pub fn name_color(name: &str) -> &'static str {
    PALETTE[(hash(name) % PALETTE.len() as u64) as usize]
}

/// Colour `k` of the [`COLOURS`]: the palette's, then generated ones (golden-angle hues at
/// three lightnesses, skipping any too near a reserved colour or an earlier one).
pub fn colour(k: usize) -> &'static str {
    static ALL: OnceLock<Vec<String>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        let mut all: Vec<String> = PALETTE.iter().map(|c| (*c).to_owned()).collect();
        let mut i = 0u32;
        while all.len() < COLOURS && i < 100_000 {
            let hue = (f64::from(i) * 137.507_764) % 360.0;
            let lightness = [0.42, 0.58, 0.74][(i % 3) as usize];
            let saturation = [0.65, 0.45][(i / 3 % 2) as usize];
            let c = hsl_hex(hue, saturation, lightness);
            i += 1;
            let clear = RESERVED
                .iter()
                .all(|r| delta_e(&c, r) >= MIN_RESERVED_DISTANCE)
                && all.iter().all(|a| *a != c);
            if clear {
                all.push(c);
            }
        }
        all
    });
    all.get(k % COLOURS.max(1))
        .map_or(PALETTE[k % PALETTE.len()], String::as_str)
}

/// Each region's colour, in the order given: distinct for up to [`COLOURS`] distinct names (a
/// name given twice gets its one colour twice).
pub fn assign(names: &[String]) -> Vec<&'static str> {
    let mut taken = vec![false; COLOURS];
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    let n = PALETTE.len();
    names
        .iter()
        .map(|name| {
            if let Some(&k) = by_name.get(name.as_str()) {
                return colour(k);
            }
            let preferred = (hash(name) % n as u64) as usize;
            let k = (0..n)
                .map(|i| (preferred + i) % n)
                .chain(n..COLOURS)
                .find(|&k| !taken[k])
                .unwrap_or(preferred);
            taken[k] = true;
            by_name.insert(name, k);
            colour(k)
        })
        .collect()
}

/// An HSL colour as `#rrggbb`.
fn hsl_hex(hue: f64, saturation: f64, lightness: f64) -> String {
    let c = (1.0 - (2.0 * lightness - 1.0).abs()) * saturation;
    let h = hue / 60.0;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = lightness - c / 2.0;
    let byte = |v: f64| ((v + m).clamp(0.0, 1.0) * 255.0).round() as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}

/// A `#rrggbb` colour in CIE L*a*b* (D65); anything else is black.
fn lab(hex: &str) -> [f64; 3] {
    let channel = |i: usize| {
        let v = hex
            .get(1 + 2 * i..3 + 2 * i)
            .and_then(|s| u8::from_str_radix(s, 16).ok())
            .map_or(0.0, |b| f64::from(b) / 255.0);
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (channel(0), channel(1), channel(2));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 0.008856 {
            t.cbrt()
        } else {
            7.787 * t + 16.0 / 116.0
        }
    };
    [
        116.0 * f(y) - 16.0,
        500.0 * (f(x) - f(y)),
        200.0 * (f(y) - f(z)),
    ]
}

/// The CIE76 distance between two `#rrggbb` colours.
pub fn delta_e(a: &str, b: &str) -> f64 {
    let (a, b) = (lab(a), lab(b));
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_palette_is_distinct_and_clear_of_the_overlays() {
        for (i, a) in PALETTE.iter().enumerate() {
            for b in &PALETTE[i + 1..] {
                assert!(delta_e(a, b) >= 18.0, "{a} and {b}: ΔE {}", delta_e(a, b));
            }
            for r in RESERVED {
                assert!(
                    delta_e(a, r) >= MIN_RESERVED_DISTANCE,
                    "{a} is near the reserved {r}: ΔE {}",
                    delta_e(a, r)
                );
            }
        }
        // The critical path's red is reserved, and far from every colour there is.
        for k in 0..COLOURS {
            assert!(
                delta_e(colour(k), colors::PATH) >= MIN_RESERVED_DISTANCE,
                "{}",
                colour(k)
            );
            assert!(
                delta_e(colour(k), colors::WAIT) >= MIN_RESERVED_DISTANCE,
                "{}",
                colour(k)
            );
        }
    }

    #[test]
    fn every_region_of_a_trace_gets_its_own_colour() {
        // More regions than the palette holds: all distinct still.
        let names: Vec<String> = (0..200).map(|i| format!("MPI_Call_{i}")).collect();
        let colours = assign(&names);
        let distinct: std::collections::HashSet<_> = colours.iter().collect();
        assert_eq!(distinct.len(), 200);
        // The names that collided in the old 10-colour hash (MPI_Reduce and Group Communication)
        // and MPI_Recv, which drew in the critical path's red.
        let names: Vec<String> = [
            "MPI_Reduce",
            "Group Communication",
            "MPI_Recv",
            "MPI_Finalize",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let colours = assign(&names);
        assert_eq!(
            colours
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len(),
            4
        );
        assert!(!colours.contains(&colors::PATH));
    }

    #[test]
    fn a_name_keeps_its_colour_when_its_slot_is_free() {
        let alone = assign(&["compute".to_owned()]);
        assert_eq!(alone[0], name_color("compute"));
        let with_others = assign(&["init".to_owned(), "compute".to_owned()]);
        if name_color("init") != name_color("compute") {
            assert_eq!(with_others[1], name_color("compute"));
        }
        // A name given twice is one region: one colour.
        let twice = assign(&["io".to_owned(), "io".to_owned()]);
        assert_eq!(twice[0], twice[1]);
    }

    #[test]
    fn generated_colours_are_well_formed() {
        for k in 0..COLOURS {
            let c = colour(k);
            assert_eq!(c.len(), 7, "{c}");
            assert!(
                c.starts_with('#') && c[1..].chars().all(|ch| ch.is_ascii_hexdigit()),
                "{c}"
            );
        }
        assert_eq!(hsl_hex(0.0, 1.0, 0.5), "#ff0000");
        assert_eq!(hsl_hex(120.0, 1.0, 0.5), "#00ff00");
        assert!(delta_e("#000000", "#ffffff") > 99.0);
    }
}
