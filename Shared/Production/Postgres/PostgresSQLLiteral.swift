extension RawRepresentable where RawValue == String {
    /// The raw value as an SQL string literal (`'active'`): how the stores spell a status, reason or mode from its enum
    /// in their statements, so a statement cannot name a value the enum does not have. For enums whose raw values are
    /// plain identifiers (a quote in one would be doubled, as SQL wants).
    public var sqlLiteral: String { "'" + String(rawValue.flatMap { $0 == "'" ? ["'", "'"] : [$0] }) + "'" }
}
