import SharedTestSupport
@testable import API
import Auth
import Foundation
import Testing

/// Every forgery of `ForgedJWT` against a user route (Security/ForgedTokenRouteTests covers every route).
@Suite("Forged and invalid tokens over HTTP")
struct ForgedTokenTests {
    @Test func everyForgedTokenIsRefused() async throws {
        let api = try await APITestHarness.shared()
        let user = APITestHarness.unique("victim")
        for (name, token) in try ForgedJWT.all(user: user) {
            let response = try await RawHTTPClient.request(port: api.port, method: "GET", path: "/user/follows", headers: ["Authorization": "Bearer \(token)"])
            #expect(response.status == 401, "\(name)")
            #expect(response.json["error"] as? String == "unauthorized", "\(name)")
            #expect(response.json["message"] is String, "\(name)")
        }
        let missing = try await api.call("GET", "/user/follows", as: nil)
        #expect(missing.status == 401)
        #expect(missing.headers["www-authenticate"] == "Bearer")
        #expect(try await api.call("GET", "/user/follows", as: user).status == 200)
    }
}
