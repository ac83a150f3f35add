@testable import API
import Foundation
import Testing

@Suite("Devices and authorization between users")
struct DeviceAndAuthzTests {
    @Test func deviceUpsertKeepsTokensLeftOutAndDeletes() async throws {
        let api = try await APITestHarness.shared().over(.http)  // this route proven over real HTTP too
        let user = APITestHarness.unique("u")
        let start = APITestHarness.hexToken().uppercased()
        var response = try await api.call("POST", "/devices", as: user, json: [
            "deviceId": "phone", "pushToStartToken": start, "apnsEnvironment": "sandbox", "appVersion": "1.0.0", "extra": "ignored",
        ])
        #expect(response.status == 200, "\(response.text)")
        #expect(response.json["hasPushToStartToken"] as? Bool == true)
        #expect(response.json["hasPushToken"] as? Bool == false)
        response = try await api.call("POST", "/devices", as: user, json: [
            "deviceId": "phone", "pushToken": APITestHarness.hexToken(), "apnsEnvironment": "production", "appVersion": "1.1.0",
        ])
        #expect(response.json["hasPushToStartToken"] as? Bool == true)
        #expect(response.json["hasPushToken"] as? Bool == true)
        #expect(response.json["apnsEnvironment"] as? String == "production")
        let stored = try await api.database.query("SELECT push_to_start_token FROM devices WHERE user_id = $1", [user])
        #expect(try stored.first?.decode("push_to_start_token", as: String.self) == start.lowercased())

        #expect(try await api.call("POST", "/devices", as: user, json: ["deviceId": "phone", "apnsEnvironment": "moon", "appVersion": "1"]).status == 400)
        #expect(try await api.call("POST", "/devices", as: user, json: ["deviceId": "phone", "apnsEnvironment": "sandbox", "appVersion": 1]).status == 400)

        #expect(try await api.call("DELETE", "/devices/phone", as: user).status == 200)
        let gone = try await api.call("DELETE", "/devices/phone", as: user)
        #expect(gone.status == 404)
        #expect(gone.json["error"] as? String == "not_found")
    }

    @Test func oneUserCannotReadOrChangeAnothersData() async throws {
        let api = try await APITestHarness.shared().over(.http)  // this route proven over real HTTP too
        let (alice, bob, match, aliceToken) = try await api.aliceFollowingWithAnActivity()

        // Bob sees none of Alice's follows.
        let bobFollows = try await api.call("GET", "/user/follows", as: bob)
        #expect((bobFollows.json["follows"] as? [Any])?.isEmpty == true)
        // Bob cannot delete Alice's device.
        #expect(try await api.call("DELETE", "/devices/alice-phone", as: bob).status == 404)
        // Bob cannot take over Alice's activity with his own token.
        let hijack = try await api.call("POST", "/matches/\(match)/activity-token", as: bob, json: ["token": APITestHarness.hexToken(length: 160), "deviceId": "alice-phone"])
        #expect(hijack.status == 409)
        // Bob's unfollow and dismissal touch nothing of Alice's.
        #expect(try await api.call("DELETE", "/user/follow/match", as: bob, json: ["matchId": match]).json["endedDevices"] as? [String] == [])
        #expect(try await api.call("POST", "/matches/\(match)/activity-dismissed", as: bob, json: ["deviceId": "alice-phone"]).json["endedDevices"] as? [String] == [])
        // Bob registering the same device id makes his own row.
        #expect(try await api.call("POST", "/devices", as: bob, json: ["deviceId": "alice-phone", "apnsEnvironment": "sandbox", "appVersion": "2"]).status == 200)
        // GET /matches/:id shows each caller their own follow state.
        #expect(try await api.call("GET", "/matches/\(match)", as: bob).json["following"] as? Bool == false)
        #expect(try await api.call("GET", "/matches/\(match)", as: alice).json["following"] as? Bool == true)

        #expect(try await api.follows(match, alice))
        let row = try #require(try await api.activities(match, alice)["alice-phone"])
        #expect(row.status == "active" && row.token == aliceToken)
        let devices = try await api.database.query("SELECT user_id FROM devices WHERE device_id = 'alice-phone' AND user_id IN ($1, $2)", [alice, bob])
        #expect(devices.count == 2)
        #expect(await JobCollector.shared.seen(matchId: match).filter { $0.job.kind == .liveActivityEnd }.isEmpty)
    }
}
