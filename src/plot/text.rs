//! Chart text: the embedded DejaVu fonts measured and laid out at fractional pen positions,
//! then rasterized with [`ab_glyph`] on a bitmap or written as SVG `<text>` elements.
//!
//! plotters' own text drawing (its `ab_glyph` backend) puts each glyph's bitmap at the pen
//! position truncated to a whole pixel and drops the glyph's left side bearing, so the gaps
//! between letters vary by up to two pixels ("th e goal", "2 b oards"). Here the pen advances in
//! fractions of a pixel (`ScaleFont::h_advance` plus `ScaleFont::kern`, summed in `f32`, never
//! rounded), each glyph is outlined by `ab_glyph` at its exact position and drawn with its
//! anti-aliased coverage; the coverages of a text are summed into one bitmap (so pixels shared
//! by two letters are not blended twice), which is then blended onto the chart. Only the
//! baseline is snapped to a whole pixel, which keeps the letters' bottoms crisp.
//!
//! A font size is `ab_glyph`'s [`PxScale`]: the pixel height from the font's descender to its
//! ascender, the scale plotters uses too, so the text keeps its size. A text's box is that
//! tall, as wide as its advances, with the baseline `round(ascent)` pixels below its top.
//!
//! On an SVG ([`Canvas`] for `SVGBackend`) the same boxes are laid out with the same
//! measurements, and each text is one `<text>` element (selectable, scalable) in the font
//! family `DejaVu Sans` (or `DejaVu Sans Mono`), anchored at the point the layout gives (its
//! start, middle or end), its baseline where the bitmap's is (to within half a pixel).

use std::sync::OnceLock;

use ab_glyph::{Font as _, FontRef, Glyph, OutlinedGlyph, PxScale, PxScaleFont, ScaleFont, point};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::layout::{Area, DrawResult};

pub(super) static DEJAVU_SANS: &[u8] = include_bytes!("DejaVuSans.ttf");
static DEJAVU_SANS_MONO: &[u8] = include_bytes!("DejaVuSansMono.ttf");

/// One of the embedded fonts, parsed by `ab_glyph`.
type Face = FontRef<'static>;

/// The embedded fonts (Sans, Mono), parsed once; `None` if either could not be read.
fn faces() -> Option<&'static (Face, Face)> {
    static FACES: OnceLock<Option<(Face, Face)>> = OnceLock::new();
    FACES
        .get_or_init(|| {
            Some((
                FontRef::try_from_slice(DEJAVU_SANS).ok()?,
                FontRef::try_from_slice(DEJAVU_SANS_MONO).ok()?,
            ))
        })
        .as_ref()
}

/// Whether the embedded fonts can be read (they always can, unless the files are damaged).
pub(super) fn fonts_ok() -> bool {
    faces().is_some()
}

/// A typeface of the charts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    /// DejaVu Sans: titles, labels, notes.
    Sans,
    /// DejaVu Sans Mono: the boards' grids.
    Mono,
}

/// A font of a chart: family, size (pixels from descender to ascender) and colour.
#[derive(Debug, Clone, Copy)]
pub(super) struct Font {
    /// The typeface.
    pub(super) family: Family,
    /// The size: pixels from the font's descender to its ascender.
    pub(super) px: f64,
    /// The colour of the letters.
    pub(super) color: RGBColor,
}

impl Font {
    /// The face at this font's size, `None` if the embedded fonts could not be read.
    fn scaled(&self) -> Option<PxScaleFont<&'static Face>> {
        let (sans, mono) = faces()?;
        let face = match self.family {
            Family::Sans => sans,
            Family::Mono => mono,
        };
        Some(face.as_scaled(PxScale::from(self.px as f32)))
    }
}

/// Where a point given to [`draw_text`] is on the text's box, along one axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Align {
    /// The left (or top) edge.
    Start,
    /// The middle.
    Center,
    /// The right (or bottom) edge.
    End,
}

impl Align {
    fn offset(self, size: i32) -> i32 {
        match self {
            Align::Start => 0,
            Align::Center => size / 2,
            Align::End => size,
        }
    }
}

/// Width of `text` in `font`, in (fractional) pixels: the sum of its advances and kerning.
pub(super) fn text_width(text: &str, font: &Font) -> f64 {
    font.scaled()
        .map_or(0.0, |scaled| f64::from(layout(&scaled, text, 0.0).1))
}

/// The box of `text` in `font`, in pixels: (width rounded up, height).
pub(super) fn text_size(text: &str, font: &Font) -> (i32, i32) {
    (text_width(text, font).ceil() as i32, font.px.round() as i32)
}

/// Draws `text` on `root` with the point `(x, y)` (pixels) at `align` (horizontal, vertical)
/// of its box.
pub(super) fn draw_text<C: Canvas>(
    root: &Area<C>,
    text: &str,
    font: &Font,
    point: (i32, i32),
    align: (Align, Align),
) -> DrawResult {
    C::put_text(root, text, font, point, align)
}

/// Draws `text` turned a quarter left (reading upwards), its box centred on `centre`
/// (pixels).
pub(super) fn draw_text_upwards<C: Canvas>(
    root: &Area<C>,
    text: &str,
    font: &Font,
    centre: (i32, i32),
) -> DrawResult {
    C::put_text_upwards(root, text, font, centre)
}

/// A plotters backend the charts are drawn on, and how chart text goes on it: as pixels on a
/// bitmap (rasterized here, see the module), as `<text>` elements on an SVG. Both place the
/// text's box (see [`text_size`]) the same way.
pub(super) trait Canvas: DrawingBackend<ErrorType: 'static> + Sized {
    /// Draws `text` on `root` with the point `(x, y)` (pixels) at `align` (horizontal,
    /// vertical) of its box.
    fn put_text(
        root: &DrawingArea<Self, Shift>,
        text: &str,
        font: &Font,
        point: (i32, i32),
        align: (Align, Align),
    ) -> DrawResult;

    /// Draws `text` turned a quarter left (reading upwards), its box centred on `centre`
    /// (pixels).
    fn put_text_upwards(
        root: &DrawingArea<Self, Shift>,
        text: &str,
        font: &Font,
        centre: (i32, i32),
    ) -> DrawResult;
}

impl Canvas for BitMapBackend<'_> {
    fn put_text(
        root: &Area<Self>,
        text: &str,
        font: &Font,
        (x, y): (i32, i32),
        (h, v): (Align, Align),
    ) -> DrawResult {
        let (w, ht) = text_size(text, font);
        let (left, top) = (x - h.offset(w), y - v.offset(ht));
        blit(root, text, font, |bx, by| (left + bx, top + by))
    }

    fn put_text_upwards(
        root: &Area<Self>,
        text: &str,
        font: &Font,
        (x, y): (i32, i32),
    ) -> DrawResult {
        let (w, ht) = text_size(text, font);
        let (left, bottom) = (x - ht / 2, y + w / 2);
        blit(root, text, font, |bx, by| (left + by, bottom - bx))
    }
}

/// The font family an SVG names for [`Family::Sans`]: the embedded font, which the layout
/// measured, then the viewer's own sans-serif (where the texts may be a little wider or
/// narrower than their boxes).
pub(super) const SVG_SANS: &str = "DejaVu Sans, sans-serif";
/// The font family an SVG names for [`Family::Mono`], as [`SVG_SANS`].
pub(super) const SVG_MONO: &str = "DejaVu Sans Mono, monospace";

/// plotters' SVG backend writes a text's `font-size` as the size it is given divided by this
/// (it takes sizes as descender-to-ascender heights, as here, for a typical font).
const PLOTTERS_SVG_SIZE_RATIO: f64 = 1.24;

/// plotters' SVG backend puts a top-anchored text's baseline this many ems below the anchor
/// (`dy="0.76em"`).
const PLOTTERS_SVG_TOP_DY: f64 = 0.76;

impl Canvas for SVGBackend<'_> {
    fn put_text(
        root: &Area<Self>,
        text: &str,
        font: &Font,
        (x, y): (i32, i32),
        (h, v): (Align, Align),
    ) -> DrawResult {
        let (_, ht) = text_size(text, font);
        let top = y - v.offset(ht);
        let anchor = match h {
            Align::Start => HPos::Left,
            Align::Center => HPos::Center,
            Align::End => HPos::Right,
        };
        let svg = SvgFont::of(font)?;
        let y = (f64::from(top) + svg.top_to_anchor).round() as i32;
        svg_text(root, text, font, &svg, (x, y), anchor, FontTransform::None)
    }

    fn put_text_upwards(
        root: &Area<Self>,
        text: &str,
        font: &Font,
        (x, y): (i32, i32),
    ) -> DrawResult {
        // Turned a quarter left, the top of the box is its left side.
        let (_, ht) = text_size(text, font);
        let svg = SvgFont::of(font)?;
        let x = (f64::from(x - ht / 2) + svg.top_to_anchor).round() as i32;
        svg_text(
            root,
            text,
            font,
            &svg,
            (x, y),
            HPos::Center,
            FontTransform::Rotate270,
        )
    }
}

/// A chart font as an SVG gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct SvgFont {
    /// The size to give plotters for the `font-size` of the font's em, in pixels to a
    /// hundredth (`20.62` for 24 pixels from descender to ascender).
    plotters_size: f64,
    /// From the top of a text's box to the point plotters anchors a top-aligned text at, so
    /// that its baseline is where the bitmap's is (`round(ascent)` below the top), in pixels.
    top_to_anchor: f64,
}

impl SvgFont {
    /// The SVG form of `font`.
    ///
    /// # Errors
    /// When the embedded fonts cannot be read.
    fn of(font: &Font) -> Result<SvgFont, Box<dyn std::error::Error>> {
        let scaled = font
            .scaled()
            .ok_or("the embedded DejaVu font could not be read")?;
        let per_em = scaled
            .font()
            .units_per_em()
            .unwrap_or(scaled.font().height_unscaled());
        let em = (f64::from(per_em * scaled.h_scale_factor()) * 100.0).round() / 100.0;
        // The size plotters divides back to exactly `em` (written as, e.g., `20.62`).
        let mut size = em * PLOTTERS_SVG_SIZE_RATIO;
        for _ in 0..8 {
            let written = size / PLOTTERS_SVG_SIZE_RATIO;
            if written == em {
                break;
            }
            size = if written < em {
                size.next_up()
            } else {
                size.next_down()
            };
        }
        Ok(SvgFont {
            plotters_size: size,
            top_to_anchor: f64::from(scaled.ascent().round()) - PLOTTERS_SVG_TOP_DY * em,
        })
    }
}

/// Writes `text` as an SVG `<text>` element at `anchor` (horizontally at `h` of the text,
/// vertically plotters' top anchor), turned by `turn`.
fn svg_text(
    root: &Area<SVGBackend<'_>>,
    text: &str,
    font: &Font,
    svg: &SvgFont,
    anchor: (i32, i32),
    h: HPos,
    turn: FontTransform,
) -> DrawResult {
    let family = match font.family {
        Family::Sans => SVG_SANS,
        Family::Mono => SVG_MONO,
    };
    let desc = FontDesc::new(
        FontFamily::Name(family),
        svg.plotters_size,
        FontStyle::Normal,
    )
    .transform(turn);
    let style = TextStyle::from(desc)
        .color(&font.color)
        .pos(Pos::new(h, VPos::Top));
    root.draw_text(&kept_spaces(text), &style, anchor)?;
    Ok(())
}

/// `text` with the spaces an SVG viewer would drop or merge (leading, trailing, or after
/// another space: the aligned columns of a board's grid) made no-break spaces, which keep
/// their width; single spaces between words stay plain (for copying).
pub(super) fn kept_spaces(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let merged = i == 0 || i + 1 == chars.len() || chars[i - 1] == ' ';
            if c == ' ' && merged { '\u{a0}' } else { c }
        })
        .collect()
}

/// The glyphs of `text` positioned on a baseline `baseline` pixels below the box's top, their
/// pen positions fractional pixels from its left, and the text's width.
fn layout(font: &PxScaleFont<&'static Face>, text: &str, baseline: f32) -> (Vec<Glyph>, f32) {
    let mut pen = 0.0f32;
    let mut previous = None;
    let mut glyphs = Vec::with_capacity(text.len());
    for c in text.chars() {
        let id = font.glyph_id(c);
        if let Some(left) = previous {
            pen += font.kern(left, id);
        }
        glyphs.push(Glyph {
            id,
            scale: font.scale(),
            position: point(pen, baseline),
        });
        pen += font.h_advance(id);
        previous = Some(id);
    }
    (glyphs, pen)
}

/// A rasterized text: coverage (0..=1) row by row, and which of its pixels is the top left of
/// the text's box.
struct Bitmap {
    width: usize,
    coverage: Vec<f32>,
    origin: (i32, i32),
}

/// Rasterizes `text`: glyphs at fractional pen positions, the baseline on a whole pixel.
fn rasterize(font: &PxScaleFont<&'static Face>, text: &str) -> Bitmap {
    let (glyphs, _) = layout(font, text, font.ascent().round());
    let outlined: Vec<OutlinedGlyph> = glyphs
        .into_iter()
        .filter_map(|glyph| font.outline_glyph(glyph))
        .collect();
    // The union of the glyphs' pixel bounds (whole numbers), at least one pixel.
    let (mut x0, mut y0, mut x1, mut y1) = (0.0f32, 0.0f32, 1.0f32, 1.0f32);
    for (i, glyph) in outlined.iter().enumerate() {
        let b = glyph.px_bounds();
        if i == 0 {
            (x0, y0, x1, y1) = (b.min.x, b.min.y, b.max.x, b.max.y);
        } else {
            (x0, y0) = (x0.min(b.min.x), y0.min(b.min.y));
            (x1, y1) = (x1.max(b.max.x), y1.max(b.max.y));
        }
    }
    let width = ((x1 - x0) as usize).max(1);
    let height = ((y1 - y0) as usize).max(1);
    let mut coverage = vec![0.0f32; width * height];
    for glyph in &outlined {
        let b = glyph.px_bounds();
        let (dx, dy) = ((b.min.x - x0) as usize, (b.min.y - y0) as usize);
        glyph.draw(|x, y, c| {
            let at = (dy + y as usize) * width + dx + x as usize;
            if let Some(cell) = coverage.get_mut(at) {
                *cell = (*cell + c).min(1.0);
            }
        });
    }
    Bitmap {
        width,
        coverage,
        origin: (-x0 as i32, -y0 as i32),
    }
}

/// Rasterizes `text` and blends it onto `root`, the box's pixel `(bx, by)` going to `place`.
fn blit(
    root: &Area<BitMapBackend<'_>>,
    text: &str,
    font: &Font,
    place: impl Fn(i32, i32) -> (i32, i32),
) -> DrawResult {
    let scaled = font
        .scaled()
        .ok_or("the embedded DejaVu font could not be read")?;
    let bitmap = rasterize(&scaled, text);
    for (j, row) in bitmap.coverage.chunks(bitmap.width).enumerate() {
        for (i, &c) in row.iter().enumerate() {
            if c >= 1.0 / 512.0 {
                let (bx, by) = (i as i32 - bitmap.origin.0, j as i32 - bitmap.origin.1);
                root.draw_pixel(place(bx, by), &font.color.mix(f64::from(c)))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sans(px: f64) -> Font {
        Font {
            family: Family::Sans,
            px,
            color: BLACK,
        }
    }

    /// Ink of `text` drawn at the left of an otherwise white image: the darkness (0..=1) of
    /// each column.
    fn column_ink(text: &str, font: &Font, x: i32) -> Vec<f64> {
        let (w, h) = (400u32, 40u32);
        let mut buffer = vec![255u8; (w * h * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut buffer, (w, h)).into_drawing_area();
            draw_text(&root, text, font, (x, 5), (Align::Start, Align::Start)).expect("draw");
            root.present().expect("present");
        }
        (0..w as usize)
            .map(|col| {
                (0..h as usize)
                    .map(|row| 1.0 - f64::from(buffer[(row * w as usize + col) * 3]) / 255.0)
                    .sum()
            })
            .collect()
    }

    /// The centre of the ink between columns `a` and `b` (fractional).
    fn centroid(ink: &[f64], a: f64, b: f64) -> f64 {
        let (mut mass, mut moment) = (0.0, 0.0);
        for (i, &v) in ink.iter().enumerate() {
            let centre = i as f64 + 0.5;
            if centre >= a && centre < b {
                mass += v;
                moment += v * centre;
            }
        }
        moment / mass
    }

    #[test]
    fn the_fonts_are_read() {
        let (sans, mono) = faces().expect("fonts");
        assert_eq!(
            (sans.ascent_unscaled(), sans.descent_unscaled()),
            (1901.0, -483.0)
        );
        let e = sans.glyph_id('e');
        assert_ne!(e.0, 0);
        assert_eq!(sans.h_advance_unscaled(e), 1260.0);
        assert_eq!(sans.glyph_id('\u{4E2D}').0, 0);
        // "AV" is kerned tighter than its advances; the monospaced font has no kerning.
        let (a, v) = (sans.glyph_id('A'), sans.glyph_id('V'));
        assert!(sans.kern_unscaled(a, v) < 0.0);
        assert_eq!(
            mono.kern_unscaled(mono.glyph_id('A'), mono.glyph_id('V')),
            0.0
        );
    }

    /// Widths are the exact sum of advances, not a sum of rounded ones.
    #[test]
    fn widths_are_not_rounded_per_glyph() {
        let font = sans(15.0);
        let one = text_width("n", &font);
        let eight = text_width("nnnnnnnn", &font);
        assert!((eight - 8.0 * one).abs() < 1e-3, "{one} {eight}");
        assert!(one.fract() > 0.01, "{one}");
    }

    /// Identical letters are drawn exactly one advance apart, to a tenth of a pixel, at every
    /// size the charts use: the ink of each glyph is centred at pen + the same offset. (With
    /// positions truncated to whole pixels the spacing alternated between 8 and 9 pixels.)
    #[test]
    fn letters_are_evenly_spaced() {
        for px in [14.0, 15.0, 16.0, 19.0, 24.0] {
            let font = sans(px);
            for pattern in ["n", "he", "oa"] {
                let text = pattern.repeat(8);
                let period = text_width(pattern, &font) + kerning_between(pattern, &font);
                let ink = column_ink(&text, &font, 10);
                let centres: Vec<f64> = (0..8)
                    .map(|k| {
                        let a = 10.0 + k as f64 * period;
                        let first = text_width(&pattern[..1], &font);
                        centroid(&ink, a, a + first)
                    })
                    .collect();
                for pair in centres.windows(2) {
                    let gap = pair[1] - pair[0];
                    assert!(
                        (gap - period).abs() < 0.1,
                        "{pattern:?} at {px} px: glyphs {gap:.3} px apart, expected {period:.3} \
                         ({centres:?})"
                    );
                }
            }
        }
    }

    /// Kerning between the last and the first letter of `pattern`, in pixels.
    fn kerning_between(pattern: &str, font: &Font) -> f64 {
        let scaled = font.scaled().expect("font");
        let (first, last) = (
            pattern.chars().next().expect("char"),
            pattern.chars().last().expect("char"),
        );
        f64::from(scaled.kern(scaled.glyph_id(last), scaled.glyph_id(first)))
    }

    /// The gap between two different letters is the one the font's metrics give: the ink of
    /// "e" in "the" sits where "e" drawn alone at the same pen position does.
    #[test]
    fn mixed_letters_sit_at_their_pen_positions() {
        let font = sans(19.0);
        for (text, prefix) in [("the", "th"), ("boards", "b"), ("goal", "go")] {
            let pen = text_width(prefix, &font);
            let ink = column_ink(text, &font, 20);
            let next = text.chars().nth(prefix.len()).expect("char").to_string();
            let alone = column_ink(&next, &font, 20);
            let (whole_w, next_w) = (text_width(text, &font), text_width(&next, &font));
            assert!(whole_w > pen + next_w - 1.0);
            // The letter alone, moved by the pen: its centre in the word, within a tenth of a
            // pixel plus the difference of the two fractional positions' rasterizations.
            let in_word = centroid(&ink, 20.0 + pen, 20.0 + pen + next_w);
            let by_itself = centroid(&alone, 20.0, 20.0 + next_w) + pen;
            assert!(
                (in_word - by_itself).abs() < 0.15,
                "{text:?}: {next:?} at {in_word:.3}, expected {by_itself:.3}"
            );
        }
    }

    #[test]
    fn upward_text_is_the_same_ink_turned() {
        let font = sans(19.0);
        let (w, h) = (60u32, 300u32);
        let mut buffer = vec![255u8; (w * h * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut buffer, (w, h)).into_drawing_area();
            draw_text_upwards(&root, "share (%)", &font, (30, 150)).expect("draw");
            root.present().expect("present");
        }
        let dark_rows: Vec<usize> = (0..h as usize)
            .filter(|&y| (0..w as usize).any(|x| buffer[(y * w as usize + x) * 3] < 128))
            .collect();
        let (tw, _) = text_size("share (%)", &font);
        let (first, last) = (dark_rows[0] as i32, *dark_rows.last().expect("ink") as i32);
        assert!(
            first >= 150 - tw / 2 - 1 && last <= 150 + tw / 2 + 1,
            "{first}..{last}"
        );
        assert!(last - first > tw * 3 / 4, "{first}..{last} for {tw}");
    }
}
