import Foundation

/// The metric names a PromQL expression reads, and the expressions of the project's rule file and
/// Grafana dashboard — what a test checks against the series a real Prometheus scraped.
///
/// Not a PromQL parser: string literals, label matchers (`{…}`), range selectors (`[…]`) and
/// grouping clauses (`by (…)`, `on (…)`, …) are removed, then every identifier that is not a
/// function or aggregation (followed by `(`), a keyword or a number is a metric name.
public enum PromQLMetricNames {
    static let keywords: Set<String> = ["and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
                                        "group_left", "group_right", "inf", "nan", "Inf", "NaN", "atan2"]
    static let groupingClauses = ["by", "without", "on", "ignoring", "group_left", "group_right"]

    /// The metric names `expression` reads.
    public static func names(in expression: String) -> Set<String> {
        var text = Array(removingDelimited(expression).unicodeScalars)
        // Grouping clauses: the keyword and its parenthesised label list.
        var cleaned: [Unicode.Scalar] = []
        var index = 0
        while index < text.count {
            if let clause = groupingClauses.first(where: { startsWord($0, in: text, at: index) }) {
                var next = index + clause.unicodeScalars.count
                while next < text.count, text[next] == " " { next += 1 }
                if next < text.count, text[next] == "(", let close = text[next...].firstIndex(of: ")") {
                    index = close + 1
                    continue
                }
                cleaned.append(contentsOf: clause.unicodeScalars)
                index += clause.unicodeScalars.count
                continue
            }
            cleaned.append(text[index])
            index += 1
        }
        text = cleaned
        var names = Set<String>()
        index = 0
        while index < text.count {
            guard isIdentifierStart(text[index]), index == 0 || !isIdentifierPart(text[index - 1]) else {
                index += 1
                continue
            }
            var end = index
            while end < text.count, isIdentifierPart(text[end]) { end += 1 }
            let word = String(String.UnicodeScalarView(text[index..<end]))
            var after = end
            while after < text.count, text[after] == " " { after += 1 }
            let isCall = after < text.count && text[after] == "("
            let numeric = index > 0 && (text[index - 1] == "." || ("0"..."9").contains(text[index - 1]))
            if !isCall, !numeric, !keywords.contains(word) { names.insert(word) }
            index = end
        }
        return names
    }

    /// Every `expr:` of a Prometheus rule file (one-line expressions, as deploy/prometheus/alerts.yml has).
    public static func ruleExpressions(_ yaml: String) -> [String] {
        yaml.split(separator: "\n").compactMap { line in
            let trimmed = ruleKey(line)
            guard trimmed.hasPrefix("expr:") else { return nil }
            return String(trimmed.dropFirst(5).trimmingSpaces)
        }
    }

    /// The names recording rules define (`record:`), which Prometheus makes rather than scrapes.
    public static func recordedNames(_ yaml: String) -> Set<String> {
        Set(yaml.split(separator: "\n").compactMap { line in
            let trimmed = ruleKey(line)
            return trimmed.hasPrefix("record:") ? String(trimmed.dropFirst(7).trimmingSpaces) : nil
        })
    }

    /// Every `expr` string anywhere in a Grafana dashboard's JSON, with its panel's title.
    public static func dashboardExpressions(_ json: Data) throws -> [(panel: String, expression: String)] {
        var found: [(String, String)] = []
        func walk(_ value: Any, panel: String) {
            if let object = value as? [String: Any] {
                let title = object["title"] as? String ?? panel
                for (key, child) in object {
                    if key == "expr", let expression = child as? String { found.append((title, expression)) } else { walk(child, panel: title) }
                }
            } else if let array = value as? [Any] {
                for child in array { walk(child, panel: panel) }
            }
        }
        walk(try JSONSerialization.jsonObject(with: json), panel: "")
        return found
    }

    /// A rule file line from its key on (without indentation and a list item's `- `).
    private static func ruleKey<S: StringProtocol>(_ line: S) -> S.SubSequence {
        let trimmed = line.trimmingSpaces
        return trimmed.hasPrefix("- ") ? trimmed.dropFirst(2).trimmingSpaces : trimmed
    }

    /// `expression` without string literals, label matchers and range selectors.
    private static func removingDelimited(_ expression: String) -> String {
        var output = ""
        var closing: Character?
        var quote: Character?
        for character in expression {
            if let open = quote {
                if character == open { quote = nil }
                continue
            }
            if let close = closing {
                if character == "\"" || character == "'" || character == "`" { quote = character } else if character == close { closing = nil }
                continue
            }
            switch character {
            case "\"", "'", "`": quote = character
            case "{": closing = "}"
            case "[": closing = "]"
            default: output.append(character)
            }
        }
        return output
    }

    private static func startsWord(_ word: String, in text: [Unicode.Scalar], at index: Int) -> Bool {
        let scalars = Array(word.unicodeScalars)
        guard index + scalars.count <= text.count, Array(text[index..<(index + scalars.count)]) == scalars else { return false }
        let before = index == 0 || !isIdentifierPart(text[index - 1])
        let after = index + scalars.count == text.count || !isIdentifierPart(text[index + scalars.count])
        return before && after
    }

    private static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || scalar == ":"
    }

    private static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || ("0"..."9").contains(scalar)
    }
}
