import SharedTestSupport
@testable import API
import Foundation
import HTTPServer
import Testing

@Suite("Input rules, rate limit and the OpenAPI document")
struct InputAndDocumentTests {
    @Test func bodiesAreStrictAndBounded() async throws {
        let api = try await APITestHarness.shared()
        let user = APITestHarness.unique("u")
        let auth = ["Authorization": "Bearer \(api.token(user))", "Content-Type": "application/json"]
        let big = try await RawHTTPClient.request(port: api.port, method: "POST", path: "/user/follow/match", headers: auth,
                                                  body: Array("{\"matchId\":\"\(String(repeating: "x", count: 17_000))\"}".utf8))
        #expect(big.status == 413)
        #expect(big.json["error"] as? String == "payload_too_large")
        let malformed = try await RawHTTPClient.request(port: api.port, method: "POST", path: "/user/follow/match", headers: auth, body: Array("{nope".utf8))
        #expect(malformed.status == 400)
        #expect(malformed.json["error"] as? String == "malformed_json")
        let wrongType = try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": 42])
        #expect(wrongType.status == 400)
        #expect(wrongType.json["error"] as? String == "invalid_body")
        let missing = try await api.call("POST", "/user/follow/match", as: user, json: ["deviceId": "d"])
        #expect(missing.status == 400)
        for bad in ["", String(repeating: "a", count: 129), "white space", "slash/id", "ünicode"] {
            let response = try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": bad])
            #expect(response.status == 400, "\(bad)")
        }
        #expect(InputRules.isValidId("fixture-123:v2.A_b"))
        #expect(try InputRules.apnsToken(String(repeating: "AB", count: 32), field: "t") == String(repeating: "ab", count: 32))
    }

    @Test func rateLimitAnswers429() async throws {
        // A manual clock: the bucket refills 1 token/s at 60/min, so on a slow machine a real
        // clock would refill one between the last two requests.
        let clock = ManualClockBox.make()
        let api = try await APITestHarness.make(clock: clock) { $0.rateLimitPerMinute = 60 }
        defer { api.server.stopInBackground() }
        let user = APITestHarness.unique("u")
        var statuses: [Int] = []
        for _ in 0..<25 { statuses.append(try await api.call("GET", "/user/follows", as: user).status) }
        #expect(statuses.prefix(20).allSatisfy { $0 == 200 }, "\(statuses)")
        #expect(statuses.suffix(5).allSatisfy { $0 == 429 }, "\(statuses)")
        let limited = try await api.call("GET", "/user/follows", as: user)
        #expect(limited.status == 429)
        #expect(limited.json["error"] as? String == "rate_limited")
        #expect(try await api.call("GET", "/user/follows", as: APITestHarness.unique("other")).status == 200)
        clock.advance(by: 2)  // two tokens back, not three
        #expect(try await api.call("GET", "/user/follows", as: user).status == 200)
        #expect(try await api.call("GET", "/user/follows", as: user).status == 200)
        #expect(try await api.call("GET", "/user/follows", as: user).status == 429)
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedRouteExists() async throws {
        let api = try await APITestHarness.shared()
        var routed = Set(APIRoutes.all(api.service).map { "\($0.method.rawValue) \($0.pattern)" })
        routed.formUnion(["GET /health", "GET /ready", "GET /metrics"])  // ServiceKit's operations routes
        let documented = Set(OpenAPIDocument.operations.map { operation in
            let pattern = operation.path.split(separator: "/").map { segment in
                segment.hasPrefix("{") ? ":" + segment.dropFirst().dropLast() : String(segment)
            }.joined(separator: "/")
            return "\(operation.method.uppercased()) /\(pattern)"
        })
        #expect(routed == documented, "only routed: \(routed.subtracting(documented)), only documented: \(documented.subtracting(routed))")

        let response = try await api.call("GET", "/openapi.json", as: nil)
        #expect(response.status == 200)
        #expect(response.json["openapi"] as? String == "3.0.3")
        let paths = try #require(response.json["paths"] as? [String: [String: Any]])
        #expect(paths.values.reduce(0) { $0 + $1.count } == documented.count)
        // Every $ref points at a defined schema.
        let schemas = try #require((response.json["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let refs = response.text.components(separatedBy: "#/components/schemas/").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(Set(refs).subtracting(schemas.keys).isEmpty)
    }
}
