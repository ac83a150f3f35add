import Foundation
import Synchronization

/// Severity of a log line; lines below a logger's `minimumLevel` are dropped.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case debug = 0
    case info = 1
    case warning = 2
    case error = 3

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }

    /// Parses "debug", "info", "warning"/"warn" or "error" (any case).
    public init?(name: String) {
        switch name.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }
}

/// Where finished log lines go. Writes are serialised so lines never interleave.
public final class LogSink: Sendable {
    private let write: LockedValue<@Sendable (String) -> Void>

    /// A sink that calls `write` with each complete JSON line (without the newline).
    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = LockedValue(write)
    }

    func emit(_ line: String) {
        write.withLock { $0(line) }
    }

    /// Standard error, one JSON object per line.
    public static let standardError = LogSink { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// A JSON-lines logger: `{"ts":…,"level":…,"logger":…,"msg":…, metadata…}` per line.
///
/// Metadata values are strings; never pass secrets (APNs keys, JWTs) as metadata or message.
public struct Logger: Sendable {
    /// Component name written as `logger` in every line.
    public let label: String
    /// Lines below this level are dropped.
    public var minimumLevel: LogLevel
    private let sink: LogSink

    public init(label: String, minimumLevel: LogLevel = .info, sink: LogSink = .standardError) {
        self.label = label
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// A logger for a sub-component that writes to the same sink at the same level.
    public func child(_ suffix: String) -> Logger {
        Logger(label: "\(label).\(suffix)", minimumLevel: minimumLevel, sink: sink)
    }

    public func debug(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.debug, message(), metadata)
    }

    public func info(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.info, message(), metadata)
    }

    public func warning(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.warning, message(), metadata)
    }

    public func error(_ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        log(.error, message(), metadata)
    }

    /// Writes one line at `level` if it passes `minimumLevel`.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ metadata: [String: String] = [:]) {
        guard level >= minimumLevel else { return }
        var line = "{\"ts\":"
        JSONText.appendString(Logger.timestamp(), to: &line)
        line += ",\"level\":"
        JSONText.appendString(level.description, to: &line)
        line += ",\"logger\":"
        JSONText.appendString(label, to: &line)
        line += ",\"msg\":"
        JSONText.appendString(message(), to: &line)
        for key in metadata.keys.sorted() where !Logger.reservedKeys.contains(key) {
            line += ","
            JSONText.appendString(key, to: &line)
            line += ":"
            JSONText.appendString(metadata[key]!, to: &line)
        }
        line += "}"
        sink.emit(line)
    }

    private static let reservedKeys: Set<String> = ["ts", "level", "logger", "msg"]

    private static func timestamp() -> String {
        Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
