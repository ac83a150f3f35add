import SharedTestSupport
@testable import API
import Foundation
import Testing

/// Every forged or invalid JWT is answered 401 on every authenticated route, before any body or
/// parameter is looked at, and changes nothing.
@Suite("Forged tokens on every authenticated route")
struct ForgedTokenRouteTests {
    /// (method, path, body) for every route that needs a user (admin routes included).
    static func routes(match: String, device: String, user: String = ":userId") -> [(String, String, [String: Any]?)] {
        [
            ("POST", "/user/follow/match", ["matchId": match]),
            ("DELETE", "/user/follow/match", ["matchId": match]),
            ("POST", "/matches/\(match)/follow", ["deviceId": device]),
            ("POST", "/matches/\(match)/unfollow", nil),
            ("GET", "/user/follows", nil),
            ("POST", "/matches/\(match)/activity-token", ["token": APITestHarness.hexToken(length: 160), "deviceId": device]),
            ("POST", "/matches/\(match)/activity-dismissed", ["deviceId": device]),
            ("POST", "/devices", ["deviceId": device, "apnsEnvironment": "sandbox", "appVersion": "1.0.0"]),
            ("DELETE", "/devices/\(device)", nil),
            ("GET", "/matches", nil),
            ("GET", "/matches/live", nil),
            ("GET", "/matches/\(match)", nil),
            ("GET", "/admin/pipeline", nil),
            ("GET", "/admin/matches/\(match)/status", nil),
            ("GET", "/admin/replay", nil),
            ("POST", "/admin/replay/\(match)/pause", nil),
            ("GET", "/admin/support/users/\(user)", nil),
            ("GET", "/admin/support/users/\(user)/devices/\(device)", nil),
            ("GET", "/admin/support/matches/\(match)/users/\(user)/devices/\(device)", nil),
            // The support page answers its errors as HTML (a browser shows them), still 401.
            ("GET", user == ":userId" ? "/admin/support/view" : "/admin/support/view?user=\(user)&device=\(device)", nil),
        ]
    }

    @Test func everyForgedTokenIsRefusedOnEveryAuthenticatedRoute() async throws {
        let api = try await APITestHarness.shared()
        let victim = APITestHarness.unique("victim")
        let match = APITestHarness.unique("m")
        try await api.seedMatch(match, live: true)
        try await api.registerDevice(victim, "phone")
        #expect(try await api.call("POST", "/user/follow/match", as: victim, json: ["matchId": match]).status == 200)
        let before = try await api.snapshot(of: victim)

        // The documented route table has no authenticated route this list misses.
        let listed = Set(Self.routes(match: ":matchId", device: ":deviceId").map { "\($0.0) \($0.1)" }
            .map { $0.replacingOccurrences(of: "/pause", with: "/:action") })
        let open: Set = ["GET /app/config", "GET /openapi.json", "GET /admin/support"]  // the last: the support page's sign-in form
        let routed = Set(APIRoutes.all(api.service).map { "\($0.method.rawValue) \($0.pattern)" }).subtracting(open)
        #expect(routed == listed, "routes not covered: \(routed.subtracting(listed))")

        var checked = 0
        for (name, token) in try ForgedJWT.all(user: victim) {
            for (method, path, json) in Self.routes(match: match, device: "phone", user: victim) {
                var headers = ["Authorization": "Bearer \(token)"]
                var body: [UInt8] = []
                if let json {
                    body = Array(try JSONSerialization.data(withJSONObject: json))
                    headers["Content-Type"] = "application/json"
                }
                let response = try await RawHTTPClient.request(port: api.port, method: method, path: path, headers: headers, body: body)
                #expect(response.status == 401, "\(name): \(method) \(path) answered \(response.status) \(response.text)")
                if path.hasPrefix("/admin/support/view") {
                    #expect(response.text.contains("unauthorized") && response.headers["content-type"]?.hasPrefix("text/html") == true, "\(name): \(path)")
                    // The same forged token in the page's cookie is refused alike.
                    let cookie = try await RawHTTPClient.request(port: api.port, method: method, path: path,
                                                                 headers: ["Cookie": "sightscreen_admin=\(token)"])
                    #expect(cookie.status == 401 || token.isEmpty, "\(name): cookie \(path) answered \(cookie.status)")
                } else {
                    #expect(response.json["error"] as? String == "unauthorized", "\(name): \(method) \(path)")
                }
                #expect(!response.text.contains(token) || token.isEmpty, "\(name): the token is not echoed")
                checked += 1
            }
        }
        // Without a header, and with a non-Bearer scheme.
        for (method, path, _) in Self.routes(match: match, device: "phone", user: victim) {
            #expect(try await RawHTTPClient.request(port: api.port, method: method, path: path).status == 401, "\(method) \(path)")
            let basic = try await RawHTTPClient.request(
                port: api.port, method: method, path: path, headers: ["Authorization": "Basic dXNlcjpwYXNz"])
            #expect(basic.status == 401, "\(method) \(path) Basic")
        }
        #expect(checked == 15 * Self.routes(match: ":matchId", device: ":deviceId").count)
        #expect(try await api.snapshot(of: victim) == before, "no forged call changed the victim's rows")
        #expect(try await api.call("GET", "/user/follows", as: victim).status == 200, "the real token still works")
    }
}
