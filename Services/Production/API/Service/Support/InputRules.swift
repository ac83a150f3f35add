import Runtime
import Foundation
import Contracts
import HTTPServer

/// The api's input rules: bounded ids, APNs tokens as even-length hex of 64–200 characters
/// (lower-cased), UTC dates as YYYY-MM-DD. Every violation is a 400 `invalid_body` /
/// `invalid_parameter` naming the field (never echoing long input).
enum InputRules {
    static let maximumIdLength = Identifier.maximumLength
    static let tokenLengths = 64...200

    /// `Identifier.isValid`: 1–128 characters of `[A-Za-z0-9._:-]`, not `.` or `..`.
    static func isValidId(_ value: String) -> Bool { Identifier.isValid(value) }

    /// Checks an id from the body; `field` names it in the error.
    static func id(_ value: String, field: String) throws(HTTPError) -> String {
        guard isValidId(value) else {
            throw .invalidBody("'\(field)' must be \(Identifier.rule)")
        }
        return value
    }

    /// Checks an id from the path.
    static func pathId(_ request: HTTPRequest, _ name: String) throws(HTTPError) -> String {
        let value = try request.parameter(name)
        guard isValidId(value) else {
            throw HTTPError(
                status: 400, code: "invalid_parameter",
                message: "path parameter '\(name)' must be \(Identifier.rule)")
        }
        return value
    }

    /// An APNs token: even-length hex, 64–200 characters; returned lower-cased.
    static func apnsToken(_ value: String, field: String) throws(HTTPError) -> String {
        let bytes = value.utf8
        let isHex = bytes.allSatisfy(\.isHexDigit)
        guard isHex, tokenLengths.contains(bytes.count), bytes.count % 2 == 0 else {
            throw .invalidBody("'\(field)' must be an APNs token: hex, even length, \(tokenLengths.lowerBound)–\(tokenLengths.upperBound) characters")
        }
        return value.lowercased()
    }

    /// An iOS version: 1–3 dot-separated numbers of up to 3 digits ("18", "18.2", "17.5.1").
    static func osVersion(_ value: String, field: String) throws(HTTPError) -> String {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy({ (1...3).contains($0.count) && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else { throw .invalidBody("'\(field)' must be an iOS version such as 18.2") }
        return value
    }

    /// A broadcast channel id: 4–256 characters of standard base64 (as APNs issues them).
    static func channelId(_ value: String, field: String) throws(HTTPError) -> String {
        guard value.utf8.count >= 4, Base64.isStandard(value) else { throw .invalidBody("'\(field)' must be a broadcast channel id (base64)") }
        return value
    }

    /// A short free-text field (app version): 1–`limit` printable characters.
    static func shortText(_ value: String, field: String, limit: Int = 32) throws(HTTPError) -> String {
        guard (1...limit).contains(value.utf8.count), value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw .invalidBody("'\(field)' must be 1–\(limit) printable ASCII characters")
        }
        return value
    }

    /// A UTC day `YYYY-MM-DD`: the instant it starts.
    static func day(_ value: String) throws(HTTPError) -> Date {
        let parts = value.split(separator: "-", omittingEmptySubsequences: false)
        guard value.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1000...9999).contains(year), (1...12).contains(month), (1...31).contains(day)
        else { throw invalidDate }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { throw invalidDate }
        return date
    }

    private static let invalidDate = HTTPError(
        status: 400, code: "invalid_parameter", message: "query parameter 'date' must be a UTC day YYYY-MM-DD")
}
