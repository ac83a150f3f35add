import Foundation

/// The `status` string of a SportMonks fixture.
///
/// SportMonks publishes no official table. Observed in real replies: "1st Innings", "2nd Innings",
/// "Finished". Enumerated consistently by consumer code: "NS", "1st Innings" … "4th Innings",
/// "Stump Day 1" … "Stump Day 5", "Innings Break", "Tea Break", "Lunch", "Dinner", "Int." (interrupted),
/// "Delayed", "Postp.", "Cancl." (also seen as "Cancl"), "Aban.", "Finished".
/// "Super Over" is the convention of our fake server for super-over innings (never observed from
/// SportMonks). Anything else decodes to `.unknown(raw)` and round-trips unchanged.
public enum SportMonksStatus: Sendable, Hashable, Codable, CustomStringConvertible {
    case notStarted
    case innings(Int)
    case superOver
    case inningsBreak
    case lunch
    case teaBreak
    case dinner
    case stumps(day: Int)
    case interrupted
    case delayed
    case postponed
    case cancelled
    case abandoned
    case finished
    case unknown(String)

    /// Broad phase used to decide whether to keep polling.
    public enum Phase: String, Sendable, Hashable, Codable {
        case notStarted, inPlay, ended, unknown
    }

    /// Classifies a raw status string (exact strings first, then tolerant fallbacks).
    public init(rawValue: String) {
        let raw = rawValue.trimmingCharacters(in: .whitespaces)
        switch raw {
        case "NS": self = .notStarted
        case "1st Innings": self = .innings(1)
        case "2nd Innings": self = .innings(2)
        case "3rd Innings": self = .innings(3)
        case "4th Innings": self = .innings(4)
        case "Super Over": self = .superOver
        case "Innings Break": self = .inningsBreak
        case "Lunch": self = .lunch
        case "Tea Break", "Tea": self = .teaBreak
        case "Dinner": self = .dinner
        case "Int.": self = .interrupted
        case "Delayed": self = .delayed
        case "Postp.": self = .postponed
        case "Cancl.", "Cancl": self = .cancelled
        case "Aban.": self = .abandoned
        case "Finished": self = .finished
        default:
            if raw.hasPrefix("Stump Day "), let day = Int(raw.dropFirst("Stump Day ".count)) {
                self = .stumps(day: day)
            } else {
                self = .unknown(rawValue)
            }
        }
    }

    /// The exact string SportMonks sends (unknown values keep their original text).
    public var rawValue: String {
        switch self {
        case .notStarted: "NS"
        case .innings(let n): "\(n)\(Self.ordinalSuffix(n)) Innings"
        case .superOver: "Super Over"
        case .inningsBreak: "Innings Break"
        case .lunch: "Lunch"
        case .teaBreak: "Tea Break"
        case .dinner: "Dinner"
        case .stumps(let day): "Stump Day \(day)"
        case .interrupted: "Int."
        case .delayed: "Delayed"
        case .postponed: "Postp."
        case .cancelled: "Cancl."
        case .abandoned: "Aban."
        case .finished: "Finished"
        case .unknown(let raw): raw
        }
    }

    /// not-started {NS, Delayed, Postp.}; in-play {innings, super over, breaks, stumps, Int.};
    /// ended {Finished, Aban., Cancl.}; unknown strings containing "result"/"aban"/"cancel" are ended.
    public var phase: Phase {
        switch self {
        case .notStarted, .delayed, .postponed: return .notStarted
        case .innings, .superOver, .inningsBreak, .lunch, .teaBreak, .dinner, .stumps, .interrupted: return .inPlay
        case .finished, .abandoned, .cancelled: return .ended
        case .unknown(let raw):
            let lower = raw.lowercased()
            if lower.contains("result") || lower.contains("aban") || lower.contains("cancel") { return .ended }
            if lower.contains("innings") || lower.contains("break") { return .inPlay }
            return .unknown
        }
    }

    /// True at close of play on a day of a multi-day match ("Stump Day N"): the match is still live,
    /// but nothing happens until play resumes the next day.
    public var isCloseOfPlay: Bool {
        if case .stumps = self { true } else { false }
    }

    /// True during an interval between two sessions of a day's play: lunch, tea, dinner.
    public var isInterval: Bool {
        switch self {
        case .lunch, .teaBreak, .dinner: true
        default: false
        }
    }

    public var description: String { rawValue }

    /// Decodes from the raw string; never fails on an unknown value.
    public init(from decoder: Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes as the raw string.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// "st", "nd", "rd", "th" for an ordinal number.
    public static func ordinalSuffix(_ n: Int) -> String {
        let lastTwo = n % 100
        if (11...13).contains(lastTwo) { return "th" }
        switch n % 10 {
        case 1: return "st"
        case 2: return "nd"
        case 3: return "rd"
        default: return "th"
        }
    }
}
