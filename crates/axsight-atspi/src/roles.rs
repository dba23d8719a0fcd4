//! AT-SPI role numbers as the names toolkits and Accerciser give them: the
//! one lookup the walker (reading) and normalizing (mapping to axsight's
//! roles) share. A leaf: it knows nothing of the bus or of trees.

/// AT-SPI role number of `switch`.
const SWITCH: u32 = 130;

/// The AT-SPI role name of role number `role` (`push button`, `label`).
pub fn role_name(role: u32) -> &'static str {
    match atspi_common::Role::try_from(role).map(|role| role.name()) {
        // atspi-common shortens this one; toolkits and Accerciser say "push button".
        Ok("button") => "push button",
        Ok(name) => name,
        // Newer than atspi-common's list (at-spi2-core 2.52's ATSPI_ROLE_SWITCH).
        Err(_) if role == SWITCH => "switch",
        Err(_) => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_named_by_the_spec() {
        assert_eq!(role_name(40), "password text");
        assert_eq!(role_name(43), "push button");
        assert_eq!(role_name(9999), "unknown");
    }
}
