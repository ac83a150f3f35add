@testable import API
import Contracts
import Foundation
import Testing

@Suite("Live Activity tokens and dismissal")
struct ActivityTests {
    @Test func tokenActivatesPendingRowAndRotatesInPlace() async throws {
        let api = try await APITestHarness.shared().over(.http)  // this route proven over real HTTP too
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: true)
        try await api.registerDevice(user, "phone")
        #expect(try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match, "deviceId": "phone"]).status == 200)
        #expect(try await api.activities(match, user)["phone"]?.status == "pending")

        let first = APITestHarness.hexToken(length: 160).uppercased()
        let response = try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["token": first, "deviceId": "phone"])
        #expect(response.status == 200, "\(response.text)")
        #expect(response.json["status"] as? String == "active")
        #expect(response.json["rotated"] as? Bool == false)
        var row = try #require(try await api.activities(match, user)["phone"])
        #expect(row.status == "active" && row.token == first.lowercased())

        let second = APITestHarness.hexToken(length: 160)
        let rotated = try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["token": second, "deviceId": "phone"])
        #expect(rotated.json["rotated"] as? Bool == true)
        let rows = try await api.activities(match, user)
        #expect(rows.count == 1)
        row = try #require(rows["phone"])
        #expect(row.status == "active" && row.token == second)

        let same = try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["token": second, "deviceId": "phone"])
        #expect(same.json["rotated"] as? Bool == false)
    }

    @Test func tokenWithoutFollowIsRefusedAndWithFollowCreatesActiveRow() async throws {
        let api = try await APITestHarness.shared()
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: false)
        let token = APITestHarness.hexToken(length: 160)
        let refused = try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["token": token, "deviceId": "ipad"])
        #expect(refused.status == 409)
        #expect(refused.json["error"] as? String == "not_following")
        #expect(try await api.activities(match, user).isEmpty)

        #expect(try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match]).status == 200)
        let accepted = try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["token": token, "deviceId": "ipad"])
        #expect(accepted.status == 200)
        #expect(try await api.activities(match, user)["ipad"]?.status == "active")
    }

    @Test func badTokensAreRefused() async throws {
        let api = try await APITestHarness.shared()
        let user = APITestHarness.unique("u")
        for token in ["abc", String(repeating: "g", count: 64), String(repeating: "a", count: 65), String(repeating: "a", count: 202)] {
            let response = try await api.call("POST", "/matches/m1/activity-token", as: user, json: ["token": token, "deviceId": "d"])
            #expect(response.status == 400)
            #expect(response.json["error"] as? String == "invalid_body")
        }
    }

    @Test func dismissalEndsEveryDeviceAsUserDismissed() async throws {
        let api = try await APITestHarness.shared()
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: true)
        try await api.registerDevice(user, "phone")
        try await api.registerDevice(user, "ipad")
        #expect(try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match]).status == 200)
        let tokens = [APITestHarness.hexToken(length: 160), APITestHarness.hexToken(length: 160)]
        for (device, token) in zip(["phone", "ipad"], tokens) {
            #expect(try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["token": token, "deviceId": device]).status == 200)
        }
        let response = try await api.call("POST", "/matches/\(match)/activity-dismissed", as: user, json: ["deviceId": "phone"])
        #expect(response.status == 200, "\(response.text)")
        #expect(response.json["endedDevices"] as? [String] == ["ipad", "phone"])
        let rows = try await api.activities(match, user)
        #expect(rows.values.allSatisfy { $0.status == "ended" && $0.reason == "user_dismissed" })
        #expect(try await !api.follows(match, user))
        let ends = try await JobCollector.shared.wait(matchId: match, kind: .liveActivityEnd, count: 2)
        #expect(Set(ends.map { $0.job.targets[0].token }) == Set(tokens))
        #expect(ends.allSatisfy { $0.job.jobId.contains(":user_dismissed:") })

        let again = try await api.call("POST", "/matches/\(match)/activity-dismissed", as: user, json: ["deviceId": "phone"])
        #expect(again.status == 200)
        #expect(again.json["endedDevices"] as? [String] == [])
    }
}
