/// A copy of a Prometheus rule file with its time compressed, so that a test can watch an alert
/// whose `for` is ten minutes fire within seconds: every `for:` and every range selector
/// (`[10m]`, a subquery's `[30m:1m]`) is divided by `factor` (at least one second each). The
/// expressions are otherwise the shipped ones, byte for byte. `factor` 1 returns the text as is.
///
/// Thresholds written as numbers of seconds inside an expression (`time() - x > 120`) are not
/// durations to this transform and stay as they are.
public struct RuleTimeScale: Sendable, Equatable {
    public let factor: Int

    public init(factor: Int) {
        self.factor = max(1, factor)
    }

    /// `text` with every duration in a `for:` line or a range selector divided by `factor`.
    public func apply(to text: String) -> String {
        guard factor > 1 else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("for:") {
                let value = trimmed.dropFirst(4).trimmingSpaces
                guard let seconds = Self.seconds(value) else { return String(line) }
                return String(line.prefix(line.count - trimmed.count)) + "for: " + scaled(seconds)
            }
            return scaleRanges(String(line))
        }.joined(separator: "\n")
    }

    /// Rewrites each `[duration]` and `[duration:duration]` in `line` (not inside a quoted label value).
    private func scaleRanges(_ line: String) -> String {
        var output = ""
        var quote: Character?
        var range: String?
        for character in line {
            if var inside = range {
                if character == "]" {
                    let parts = inside.split(separator: ":", omittingEmptySubsequences: false)
                    let durations = parts.map { Self.seconds($0.trimmingSpaces) }
                    output += durations.allSatisfy({ $0 != nil })
                        ? "[" + durations.map { scaled($0!) }.joined(separator: ":") + "]" : "[" + inside + "]"
                    range = nil
                } else {
                    inside.append(character)
                    range = inside
                }
                continue
            }
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" || character == "`" {
                quote = character
            } else if character == "[" {
                range = ""
                continue
            }
            output.append(character)
        }
        return output + (range.map { "[" + $0 } ?? "")
    }

    private func scaled(_ seconds: Int) -> String { "\(max(1, seconds / factor))s" }

    /// Seconds in a Prometheus duration (`90s`, `10m`, `1h30m`, `3d`, `1w`); nil when it is not one.
    static func seconds<S: StringProtocol>(_ text: S) -> Int? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800, "y": 31_536_000]
        var total = 0
        var number = 0
        var digits = 0
        for character in text {
            if let digit = character.wholeNumberValue, character.isASCII {
                guard digits < 9 else { return nil }
                number = number * 10 + digit
                digits += 1
            } else if let unit = units[character], digits > 0 {
                total += number * unit
                number = 0
                digits = 0
            } else {
                return nil
            }
        }
        return digits == 0 && total > 0 ? total : nil
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces.
    var trimmingSpaces: SubSequence {
        let start = firstIndex { $0 != " " } ?? endIndex
        let end = lastIndex { $0 != " " }.map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }
}
