//! The instruction sent with a window's screenshot.

/// The instruction for a `width`×`height` screenshot of one window: list every
/// element a user could act on or read, as JSON only, each with a box in the
/// picture's pixels.
///
/// Naming the picture's size makes most models answer in its pixels; those that
/// answer in fractions or 0–1000 anyway are understood by [`crate::parse_reply`].
///
/// ```
/// let prompt = axsight_vision::vision_prompt(800, 600);
/// assert!(prompt.contains("800x600"));
/// assert!(prompt.contains(r#""box":[x1,y1,x2,y2]"#));
/// ```
pub fn vision_prompt(width: u32, height: u32) -> String {
    format!(
        "This is a {width}x{height} pixel screenshot of one application window. \
         List every interactive or readable UI element visible in it: buttons, text \
         fields, menus and menu items, tabs, checkboxes, icons, links and text labels.\n\
         Answer with JSON only, no prose and no code fence, in exactly this form:\n\
         {{\"elements\":[{{\"role\":\"button\",\"label\":\"Save\",\"box\":[x1,y1,x2,y2]}}]}}\n\
         role: a short lowercase kind (button, field, menu, menuitem, tab, checkbox, \
         icon, link, text). label: the element's visible text, or for an icon what it \
         shows. box: the element's top-left (x1,y1) and bottom-right (x2,y2) corners \
         in pixels of this {width}x{height} image, x from the left, y from the top."
    )
}

#[cfg(test)]
mod tests {
    use super::vision_prompt;

    #[test]
    fn prompt_names_the_size_and_the_json_form() {
        let prompt = vision_prompt(1366, 741);
        assert_eq!(prompt.matches("1366x741").count(), 2);
        assert!(prompt.contains("JSON only"));
        assert!(prompt
            .contains(r#"{"elements":[{"role":"button","label":"Save","box":[x1,y1,x2,y2]}]}"#));
    }
}
