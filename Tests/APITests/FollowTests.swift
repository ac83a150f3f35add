@testable import API
import Contracts
import Foundation
import Testing

@Suite("Follow and unfollow")
struct FollowTests {
    @Test func followOfLiveMatchStartsEveryDeviceWithAPushToStartToken() async throws {
        let api = try await APITestHarness.shared().over(.http)  // this route proven over real HTTP too
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: true)
        let tokenA = try await api.registerDevice(user, "dev-a")!
        let tokenB = try await api.registerDevice(user, "dev-b", env: "production")!
        try await api.registerDevice(user, "dev-c", pushToStart: false)

        let response = try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match, "deviceId": "dev-a"])
        #expect(response.status == 200, "\(response.text)")
        let body = response.json
        #expect(body["isLive"] as? Bool == true)
        #expect(body["following"] as? Bool == true)
        #expect(body["startedDevices"] as? [String] == ["dev-a", "dev-b"])
        let state = try JSONDecoder().decode(UnifiedDisplayState.self, from: JSONSerialization.data(withJSONObject: body["displayState"] as Any))
        #expect(state == APITestHarness.displayState(match))
        #expect(try await api.follows(match, user))

        let rows = try await api.activities(match, user)
        #expect(rows.count == 2)
        #expect(rows["dev-a"]?.status == "pending" && rows["dev-b"]?.status == "pending")

        let jobs = try await JobCollector.shared.wait(matchId: match, kind: .liveActivityStart, count: 2)
        #expect(jobs.count == 2)
        let byToken = Dictionary(uniqueKeysWithValues: jobs.map { ($0.job.targets[0].token, $0) })
        let jobA = try #require(byToken[tokenA])
        let jobB = try #require(byToken[tokenB])
        #expect(jobA.job.targets[0].env == .sandbox && jobB.job.targets[0].env == .production)
        #expect(jobA.job.targets[0].userId == user && jobA.job.targets[0].deviceId == "dev-a")
        #expect(jobA.key == "\(match):\(PushSharding.shard(token: tokenA, shards: PushSharding.defaultShards))")
        #expect(jobA.job.jobId == "start:\(match):\(user):dev-a:1")
        #expect(jobA.job.stateSeq == 7)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(jobA.job.payload.utf8)) as? [String: Any])
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["event"] as? String == "start")
        #expect(aps["attributes-type"] as? String == "MatchActivityAttributes")
        #expect((aps["content-state"] as? [String: Any])?["matchId"] as? String == match)
        #expect(aps["alert"] != nil)

        // A repeated follow within the resend window changes nothing and sends nothing.
        let again = try await api.call("POST", "/matches/\(match)/follow", as: user, json: ["deviceId": "dev-a"])
        #expect(again.status == 200)
        #expect(again.json["startedDevices"] as? [String] == [])
        try await Task.sleep(for: .seconds(2))
        #expect(await JobCollector.shared.seen(matchId: match).count == 2)
    }

    @Test func followOfUpcomingMatchIsFollowOnly() async throws {
        let api = try await APITestHarness.shared()
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        let startsAt = Date().addingTimeInterval(86_400)
        try await api.seedMatch(match, live: false, startsAt: startsAt)
        try await api.registerDevice(user, "phone")
        let response = try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match, "deviceId": "phone"])
        #expect(response.status == 200)
        #expect(response.json["isLive"] as? Bool == false)
        #expect(response.json["startedDevices"] as? [String] == [])
        #expect(response.json["displayState"] == nil)
        // expires = start + 120 h + 48 h.
        let expires = try #require(ISO8601DateFormatter.withFractions.date(from: response.json["expiresAt"] as? String ?? ""))
        #expect(abs(expires.timeIntervalSince(startsAt) - (120 + 48) * 3600) < 2)
        #expect(try await api.activities(match, user).isEmpty)

        let follows = try await api.call("GET", "/user/follows", as: user)
        #expect(follows.status == 200)
        let list = try #require(follows.json["follows"] as? [[String: Any]])
        #expect(list.map { $0["matchId"] as? String } == [match])
    }

    @Test func followOfUnknownMatchIs404() async throws {
        let api = try await APITestHarness.shared()
        let response = try await api.call("POST", "/user/follow/match", as: APITestHarness.unique("u"), json: ["matchId": APITestHarness.unique("nope")])
        #expect(response.status == 404)
        #expect(response.json["error"] as? String == "not_found")
        #expect(response.json["message"] is String)
    }

    @Test func unfollowEndsEveryDeviceAndIsIdempotent() async throws {
        let api = try await APITestHarness.shared()
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: true)
        for device in ["d1", "d2", "d3"] { try await api.registerDevice(user, device) }
        #expect(try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match, "deviceId": "d1"]).status == 200)
        let update1 = APITestHarness.hexToken(length: 160)
        let update2 = APITestHarness.hexToken(length: 160)
        for (device, token) in [("d1", update1), ("d2", update2)] {
            let posted = try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["token": token, "deviceId": device])
            #expect(posted.status == 200, "\(posted.text)")
        }

        let response = try await api.call("DELETE", "/user/follow/match", as: user, json: ["matchId": match])
        #expect(response.status == 200, "\(response.text)")
        #expect(response.json["following"] as? Bool == false)
        #expect(response.json["endedDevices"] as? [String] == ["d1", "d2", "d3"])
        let rows = try await api.activities(match, user)
        #expect(rows.values.allSatisfy { $0.status == "ended" && $0.reason == "user_unfollow" })
        #expect(try await !api.follows(match, user))

        // End pushes for each device with an update token (d3 never got one).
        let ends = try await JobCollector.shared.wait(matchId: match, kind: .liveActivityEnd, count: 2)
        #expect(Set(ends.map { $0.job.targets[0].token }) == [update1, update2])
        #expect(Set(ends.map { $0.job.targets[0].deviceId }) == ["d1", "d2"])
        for end in ends {
            let aps = try #require((try JSONSerialization.jsonObject(with: Data(end.job.payload.utf8)) as? [String: Any])?["aps"] as? [String: Any])
            #expect(aps["event"] as? String == "end")
            #expect(aps["dismissal-date"] is Int)
            #expect(end.key == "\(match):\(PushSharding.shard(token: end.job.targets[0].token, shards: PushSharding.defaultShards))")
        }

        let again = try await api.call("POST", "/matches/\(match)/unfollow", as: user)
        #expect(again.status == 200)
        #expect(again.json["endedDevices"] as? [String] == [])
        try await Task.sleep(for: .seconds(2))
        #expect(await JobCollector.shared.seen(matchId: match).filter { $0.job.kind == .liveActivityEnd }.count == 2)
    }

    @Test func refollowAfterUnfollowStartsAgain() async throws {
        let api = try await APITestHarness.shared()
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: true, withState: false)
        try await api.registerDevice(user, "phone")
        #expect(try await api.call("POST", "/matches/\(match)/follow", as: user).status == 200)
        #expect(try await api.call("POST", "/matches/\(match)/unfollow", as: user).status == 200)
        let response = try await api.call("POST", "/matches/\(match)/follow", as: user)
        #expect(response.json["startedDevices"] as? [String] == ["phone"])
        let starts = try await JobCollector.shared.wait(matchId: match, kind: .liveActivityStart, count: 2)
        #expect(Set(starts.map(\.job.jobId)) == ["start:\(match):\(user):phone:1", "start:\(match):\(user):phone:2"])
        // Without a cached display state the start carries one built from the card.
        let aps = try #require((try JSONSerialization.jsonObject(with: Data(starts[0].job.payload.utf8)) as? [String: Any])?["aps"] as? [String: Any])
        #expect((aps["content-state"] as? [String: Any])?["title"] as? String == "India vs Australia")
        #expect(try await api.activities(match, user)["phone"]?.status == "pending")
    }

    /// Close of play: a follow is answered "not live" and starts nothing, a token arriving overnight leaves the
    /// row ended/day_end (the orchestrator starts it when play resumes), and a re-follow after an unfollow
    /// puts the row back among those waiting for the next day.
    @Test func atCloseOfPlayNothingStartsAndEveryFollowerWaitsForTheNextDay() async throws {
        let api = try await APITestHarness.shared()
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: true)
        try await api.database.execute("UPDATE matches SET status = 'Stump Day 2', close_of_play = true WHERE match_id = $1", [match])
        try await api.registerDevice(user, "phone")
        let follow = try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match])
        #expect(follow.status == 200 && follow.json["isLive"] as? Bool == false && follow.json["startedDevices"] as? [String] == [])
        #expect(try await api.activities(match, user).isEmpty)

        let token = APITestHarness.hexToken(length: 160)
        let overnight = try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["token": token, "deviceId": "ipad"])
        #expect(overnight.status == 200 && overnight.json["status"] as? String == "day_end", "\(overnight.text)")
        #expect(try await api.activities(match, user)["ipad"]?.status == "ended")

        // The user had unfollowed during the day (the row ended user_unfollow), and follows again overnight.
        #expect(try await api.call("POST", "/matches/\(match)/unfollow", as: user).status == 200)
        try await api.database.execute("UPDATE live_activities SET end_reason = 'user_unfollow' WHERE match_id = $1 AND user_id = $2",
                                       [match, user])
        #expect(try await api.call("POST", "/matches/\(match)/follow", as: user).status == 200)
        let reasons = try await api.database.query(
            "SELECT end_reason FROM live_activities WHERE match_id = $1 AND user_id = $2", [match, user])
            .map { try $0.decode("end_reason", as: String?.self) }
        #expect(reasons == ["day_end"], "the re-follow waits for the next day's start")
    }

    @Test func pendingRowIsRestartedAfterTheResendWindow() async throws {
        let clock = ManualClockBox.make()
        let api = try await APITestHarness.make(clock: clock)
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: true)
        try await api.registerDevice(user, "phone")
        #expect(try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match]).json["startedDevices"] as? [String] == ["phone"])
        clock.advance(by: 61)
        #expect(try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match]).json["startedDevices"] as? [String] == ["phone"])
        let starts = try await JobCollector.shared.wait(matchId: match, kind: .liveActivityStart, count: 2)
        #expect(Set(starts.map(\.job.jobId)).count == 2)
        await api.server.stop()
    }
}

extension ISO8601DateFormatter {
    nonisolated(unsafe) static let withFractions: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
