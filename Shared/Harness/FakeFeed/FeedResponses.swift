import Contracts
import Foundation
import HTTPServer

/// Reply bodies as SportMonks writes them: compact JSON, slashes escaped (`\/`), errors as
/// `{"error":{"message":…,"code":…}}` (the error shape is a guess: SportMonks documents none).
enum FeedResponses {
    static let json = HTTPHeader(name: "Content-Type", value: "application/json")

    static func body(_ value: JSONValue) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }

    static func ok(_ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [json], body: body(value))
    }

    static func error(_ status: Int, _ message: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        let value = JSONValue.object(["error": .object(["message": .string(message), "code": .int(status)])])
        return HTTPResponse(status: status, headers: [json] + headers, body: body(value))
    }

    static let unauthenticated = "Unauthenticated."
    static let notFound = "No result(s) found matching your request. Either the query did not return any results or "
        + "you don't have access to it in your current plan."

    /// `value` (a successful reply) as it looks under `fault`.
    static func applying(_ fault: FeedFault?, to value: JSONValue) -> HTTPResponse {
        guard let fault else { return ok(value) }
        switch fault.kind {
        case .serverError: return error(500, "Server Error")
        case .forbidden: return error(403, "This endpoint or include is not available in your current plan.")
        case .rateLimited:
            return error(429, "Too Many Attempts.",
                         headers: [HTTPHeader(name: "Retry-After", value: String(fault.retryAfter ?? 60))])
        case .truncated:
            let bytes = body(value)
            return HTTPResponse(status: 200, headers: [json], body: Array(bytes.prefix(max(1, bytes.count / 2))))
        case .garbage:
            return HTTPResponse(status: 200, headers: [HTTPHeader(name: "Content-Type", value: "text/html")],
                                body: Array("<html><body><h1>502 Bad Gateway</h1>nginx</body></html>".utf8))
        case .missingFields: return ok(mapFixtures(value, dropMandatoryFields))
        case .scoreBackwards: return ok(mapFixtures(value, lowerLatestScore))
        }
    }

    /// Applies `transform` to the fixture (or each fixture) under `data`.
    static func mapFixtures(_ value: JSONValue, _ transform: (JSONValue) -> JSONValue) -> JSONValue {
        guard case .object(var top) = value, let data = top["data"] else { return value }
        if case .array(let items) = data { top["data"] = .array(items.map(transform)) } else { top["data"] = transform(data) }
        return .object(top)
    }

    static func dropMandatoryFields(_ fixture: JSONValue) -> JSONValue {
        guard case .object(var object) = fixture else { return fixture }
        object["status"] = nil
        object["localteam_id"] = nil
        return .object(object)
    }

    /// Five runs off the latest `runs` row and the matching `total` scoreboard.
    static func lowerLatestScore(_ fixture: JSONValue) -> JSONValue {
        guard case .object(var object) = fixture else { return fixture }
        if case .array(var runs)? = object["runs"], let last = runs.indices.last, case .object(var row) = runs[last],
           case .int(let score)? = row["score"] {
            row["score"] = .int(max(0, score - 5))
            runs[last] = .object(row)
            object["runs"] = .array(runs)
        }
        if case .array(var boards)? = object["scoreboards"] {
            if let at = boards.lastIndex(where: { $0["type"] == .string("total") }), case .object(var row) = boards[at],
               case .int(let total)? = row["total"] {
                row["total"] = .int(max(0, total - 5))
                boards[at] = .object(row)
                object["scoreboards"] = .array(boards)
            }
        }
        return .object(object)
    }
}
