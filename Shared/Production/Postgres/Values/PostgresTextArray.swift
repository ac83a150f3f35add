/// A `text[]` literal for one query parameter (`$n::text[]`), so that a whole batch travels as a
/// few array parameters of one statement.
///
/// Every element is double-quoted, with `\` and `"` backslash-escaped, so any text (commas, braces,
/// spaces, `NULL`) arrives unchanged; the literal is still a bound parameter, never part of the SQL.
public enum PostgresTextArray {
    /// `{"a","b\"c"}` for `["a", "b\"c"]`; `{}` for none.
    public static func literal(_ elements: some Sequence<String>) -> String {
        var text = "{"
        var first = true
        for element in elements {
            if !first { text.append(",") }
            first = false
            text.append("\"")
            for scalar in element.unicodeScalars {
                if scalar == "\\" || scalar == "\"" { text.append("\\") }
                text.unicodeScalars.append(scalar)
            }
            text.append("\"")
        }
        text.append("}")
        return text
    }
}
