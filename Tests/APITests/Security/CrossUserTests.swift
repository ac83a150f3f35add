@testable import API
import Foundation
import Testing

/// User B, holding a valid token of their own, calls every route that takes an id with user A's ids
/// (match, device, activity token): A's follows, devices and activities are neither shown nor changed.
@Suite("One user cannot read or change another's data")
struct CrossUserTests {
    @Test func bobCannotReadOrChangeAlicesFollowsDevicesOrActivities() async throws {
        let api = try await APITestHarness.shared()
        let (alice, bob, match, aliceToken) = try await api.aliceFollowingWithAnActivity()
        let before = try await api.snapshot(of: alice)
        #expect(before.contains { $0.hasPrefix("activity \(match) alice-phone active") })

        // Reads: nothing of Alice's shows.
        let follows = try await api.call("GET", "/user/follows", as: bob)
        #expect((follows.json["follows"] as? [Any])?.isEmpty == true)
        #expect(!follows.text.contains(match))
        #expect(try await api.call("GET", "/matches/\(match)", as: bob).json["following"] as? Bool == false)

        // Writes with Alice's ids, and with a userId smuggled into the body (ignored: the user is the token's).
        let attempts: [(String, String, [String: Any]?)] = [
            ("DELETE", "/devices/alice-phone", nil),
            ("DELETE", "/user/follow/match", ["matchId": match, "userId": alice]),
            ("POST", "/matches/\(match)/unfollow", ["deviceId": "alice-phone", "userId": alice]),
            ("POST", "/matches/\(match)/activity-dismissed", ["deviceId": "alice-phone", "userId": alice]),
            ("POST", "/matches/\(match)/activity-token", ["token": APITestHarness.hexToken(length: 160), "deviceId": "alice-phone"]),
            ("POST", "/matches/\(match)/activity-token", ["token": aliceToken, "deviceId": "alice-phone", "userId": alice]),
            ("POST", "/user/follow/match", ["matchId": match, "deviceId": "alice-phone", "userId": alice]),
            ("POST", "/matches/\(match)/follow", ["deviceId": "alice-phone"]),
            ("POST", "/devices", ["deviceId": "alice-phone", "apnsEnvironment": "production", "appVersion": "6.6.6",
                                  "pushToStartToken": APITestHarness.hexToken(), "userId": alice]),
            ("DELETE", "/devices/alice-phone", nil),
        ]
        for (method, path, json) in attempts {
            let response = try await api.call(method, path, as: bob, json: json)
            #expect(response.status < 500, "\(method) \(path): \(response.status)")
            #expect(!response.text.contains(aliceToken), "\(method) \(path) leaked Alice's activity token")
            #expect(try await api.snapshot(of: alice) == before, "\(method) \(path) changed Alice's rows")
        }
        // Bob's calls only ever touched Bob's rows.
        let bobs = try await api.snapshot(of: bob)
        #expect(!bobs.contains { $0.contains(aliceToken) })
        #expect(try await api.snapshot(of: alice) == before)
    }
}
