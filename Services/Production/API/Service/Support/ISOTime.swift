import Foundation

/// ISO 8601 UTC timestamps with milliseconds, as the api writes them.
enum ISOTime {
    static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!))
    }
}

/// A failure inside the api that is not the client's fault (answered 500, logged).
enum APIFailure: Error, CustomStringConvertible {
    case unexpected(String)

    var description: String {
        switch self {
        case .unexpected(let reason): "unexpected: \(reason)"
        }
    }
}
