//! A plotters backend over the bitmap backend that draws text itself.
//!
//! plotters 0.3.7 places ab_glyph glyphs by their ink boxes rather than by
//! their side bearings, which puts gaps after narrow digits ("1 0") and
//! makes letters hop off the baseline. Shapes go to the bitmap backend as
//! they are; text is laid out here on one baseline, glyph by glyph, with
//! advances and kerning from the embedded font.

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use plotters::prelude::{BitMapBackend, DrawingBackend};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};

/// The embedded font, parsed once.
fn font() -> Option<&'static FontRef<'static>> {
    static FONT: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(ttf_noto_sans::REGULAR).ok()).as_ref()
}

/// Whether the embedded font loads (it always should).
pub(super) fn font_loads() -> bool {
    font().is_some()
}

/// Width and height of `text` at `size` pixels: advances plus kerning, and
/// ascent minus descent.
fn measure(font: &FontRef<'static>, size: f32, text: &str) -> (f32, f32) {
    let scaled = font.as_scaled(PxScale::from(size));
    let mut width = 0.0;
    let mut previous = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(previous) = previous {
            width += scaled.kern(previous, id);
        }
        width += scaled.h_advance(id);
        previous = Some(id);
    }
    (width, scaled.ascent() - scaled.descent())
}

/// [`BitMapBackend`] with text drawn by [`measure`]'s layout.
pub(super) struct Canvas<'a>(pub(super) BitMapBackend<'a>);

type Result<T, E> = std::result::Result<T, DrawingErrorKind<E>>;

impl DrawingBackend for Canvas<'_> {
    type ErrorType = <BitMapBackend<'static> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), Self::ErrorType> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), Self::ErrorType> {
        self.0.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Self::ErrorType> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Self::ErrorType> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Self::ErrorType> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Self::ErrorType> {
        self.0.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Self::ErrorType> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Self::ErrorType> {
        self.0.fill_polygon(vert, style)
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result<(), Self::ErrorType> {
        self.0.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<T: BackendTextStyle>(&self, text: &str, style: &T) -> Result<(u32, u32), Self::ErrorType> {
        let Some(font) = font() else { return Ok((0, 0)) };
        let (width, height) = measure(font, style.size() as f32, text);
        Ok((width.ceil() as u32, height.ceil() as u32))
    }

    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<(), Self::ErrorType> {
        let color = style.color();
        let Some(font) = font() else { return Ok(()) };
        if color.alpha == 0.0 {
            return Ok(());
        }
        let size = style.size() as f32;
        let scale = PxScale::from(size);
        let scaled = font.as_scaled(scale);
        let (width, height) = measure(font, size, text);
        let anchor = style.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -width / 2.0,
            HPos::Right => -width,
        };
        let dy = match anchor.v_pos {
            VPos::Top => 0.0,
            VPos::Center => -height / 2.0,
            VPos::Bottom => -height,
        };
        let transform = style.transform();
        let mut caret = dx;
        let mut previous = None;
        let mut result = Ok(());
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(previous) = previous {
                caret += scaled.kern(previous, id);
            }
            let glyph = id.with_scale_and_position(scale, point(caret, dy + scaled.ascent()));
            if let Some(outline) = font.outline_glyph(glyph) {
                let bounds = outline.px_bounds();
                outline.draw(|x, y, coverage| {
                    if result.is_err() || coverage <= 0.0 {
                        return;
                    }
                    let (x, y) = (bounds.min.x as i32 + x as i32, bounds.min.y as i32 + y as i32);
                    let (x, y) = transform.transform(x, y);
                    let pixel = BackendColor { alpha: color.alpha * f64::from(coverage.min(1.0)), rgb: color.rgb };
                    result = self.0.draw_pixel((pos.0 + x, pos.1 + y), pixel);
                });
            }
            caret += scaled.h_advance(id);
            previous = Some(id);
        }
        result
    }
}
