import Foundation

/// A configuration value that could not be used; the message names the variable.
public enum ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// A required variable is not set.
    case missing(variable: String)
    /// A variable is set to something unusable.
    case invalid(variable: String, value: String, expected: String)

    public var description: String {
        switch self {
        case .missing(let variable):
            "configuration: \(variable) is required but not set"
        case .invalid(let variable, let value, let expected):
            "configuration: \(variable)=\(value.debugDescription) is invalid: expected \(expected)"
        }
    }
}

/// Reads typed configuration from environment variables, with defaults and clear errors.
///
/// Services read all of their configuration through one of these, in one place, at start.
public struct EnvironmentReader: Sendable {
    private let values: [String: String]

    /// Reads from `values` (the process environment by default).
    public init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    /// The raw value, or nil when unset or empty.
    public func raw(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    public func string(_ name: String, default defaultValue: String) -> String {
        raw(name) ?? defaultValue
    }

    /// A Kafka topic name: `name`'s value, or `defaultValue` when unset.
    /// - Throws: `ConfigurationError.invalid` for an empty name or one with whitespace.
    public func topic(_ name: String, default defaultValue: String) throws(ConfigurationError) -> String {
        let value = string(name, default: defaultValue)
        guard !value.isEmpty, !value.contains(where: \.isWhitespace) else {
            throw .invalid(variable: name, value: value, expected: "a topic name without spaces")
        }
        return value
    }

    public func requiredString(_ name: String) throws(ConfigurationError) -> String {
        guard let value = raw(name) else { throw .missing(variable: name) }
        return value
    }

    public func int(_ name: String, default defaultValue: Int, in range: ClosedRange<Int> = Int.min...Int.max)
        throws(ConfigurationError) -> Int
    {
        guard let text = raw(name) else { return defaultValue }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw .invalid(variable: name, value: text, expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// An integer in `range`, or nil when the variable is unset.
    public func optionalInt(_ name: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard raw(name) != nil else { return nil }
        return try int(name, default: 0, in: range)
    }

    public func double(_ name: String, default defaultValue: Double, in range: ClosedRange<Double>)
        throws(ConfigurationError) -> Double
    {
        guard let text = raw(name) else { return defaultValue }
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw .invalid(variable: name, value: text, expected: "a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    public func bool(_ name: String, default defaultValue: Bool) throws(ConfigurationError) -> Bool {
        guard let text = raw(name) else { return defaultValue }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw .invalid(variable: name, value: text, expected: "true or false")
        }
    }

    /// A TCP port (1...65535, or 0 when `allowZero` for "any free port").
    public func port(_ name: String, default defaultValue: UInt16, allowZero: Bool = false) throws(ConfigurationError)
        -> UInt16
    {
        let value = try int(name, default: Int(defaultValue), in: (allowZero ? 0 : 1)...65535)
        return UInt16(value)
    }

    /// A duration given in milliseconds.
    public func milliseconds(_ name: String, default defaultValue: Duration, in range: ClosedRange<Int> = 0...86_400_000)
        throws(ConfigurationError) -> Duration
    {
        guard raw(name) != nil else { return defaultValue }
        return .milliseconds(try int(name, default: 0, in: range))
    }

    public func logLevel(_ name: String, default defaultValue: LogLevel) throws(ConfigurationError) -> LogLevel {
        guard let text = raw(name) else { return defaultValue }
        guard let level = LogLevel(name: text) else {
            throw .invalid(variable: name, value: text, expected: "debug, info, warning or error")
        }
        return level
    }

    /// One of `choices` (case-sensitive).
    public func choice(_ name: String, default defaultValue: String, from choices: [String]) throws(ConfigurationError)
        -> String
    {
        guard let text = raw(name) else { return defaultValue }
        guard choices.contains(text) else {
            throw .invalid(variable: name, value: text, expected: "one of " + choices.joined(separator: ", "))
        }
        return text
    }
}
