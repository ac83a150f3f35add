@testable import API
import BroadcastChannels
import Contracts
import Foundation
import SharedTestSupport
import Testing

/// Which devices use broadcast channels: the capability a device reports, the follow answer's channel, and an
/// activity registered by its channel instead of an update token (PostgreSQL, the api in process).
@Suite("broadcast channel delivery")
struct ChannelDeliveryTests {
    /// An active channel for `match` in `environment`, as the poller's manager leaves it.
    static func channel(_ api: APITestHarness, _ match: String, environment: APNsEnvironment = .sandbox) async throws -> String {
        let store = BroadcastChannelStore(database: api.database)
        let id = Data(match.utf8).base64EncodedString()
        let generation = try #require(try await store.beginCreate(matchId: match, environment: environment, storagePolicy: 0, now: Date()))
        #expect(try await store.activate(matchId: match, environment: environment, generation: generation, channelId: id, now: Date()))
        return id
    }

    /// Registers `device` of `user` as a build that subscribes to channels (`POST /devices` must answer 200).
    static func register(_ api: APITestHarness, user: String, device: String, os: String, environment: String = "sandbox",
                         extra: [String: String] = [:]) async throws {
        var body: [String: Any] = ["deviceId": device, "apnsEnvironment": environment, "appVersion": "2.0", "osVersion": os,
                                   "supportsBroadcastChannels": true]
        for (key, value) in extra { body[key] = value }
        #expect(try await api.call("POST", "/devices", as: user, json: body).status == 200, "POST /devices \(device)")
    }

    @Test("a device is channel-capable with iOS 18+ and a build that says so; older bodies and older systems are not")
    func capability() async throws {
        let api = try await APITestHarness.shared()
        let user = APITestHarness.unique("cap")
        func post(_ extra: [String: Any]) async throws -> WireResponse {
            var body: [String: Any] = ["deviceId": "phone", "apnsEnvironment": "sandbox", "appVersion": "2.0"]
            body.merge(extra) { $1 }
            return try await api.call("POST", "/devices", as: user, json: body)
        }
        let old = try await post([:])
        #expect(old.status == 200 && old.json["channelCapable"] as? Bool == false, "the body of older builds still works")
        let capable = try await post(["osVersion": "18.2", "supportsBroadcastChannels": true])
        #expect(capable.json["channelCapable"] as? Bool == true && capable.json["osVersion"] as? String == "18.2")
        #expect(try await post(["osVersion": "17.5.1", "supportsBroadcastChannels": true]).json["channelCapable"] as? Bool == false)
        #expect(try await post(["osVersion": "18.0", "supportsBroadcastChannels": false]).json["channelCapable"] as? Bool == false)
        let kept = try await post(["supportsBroadcastChannels": true])
        #expect(kept.json["osVersion"] as? String == "18.0" && kept.json["channelCapable"] as? Bool == true, "a version left out is kept")
        let bad = try await post(["osVersion": "eighteen"])
        #expect(bad.status == 400 && bad.text.contains("osVersion"))
    }

    @Test("the follow answer names the match's channel for a capable device of its environment, and only then")
    func followAnswerCarriesTheChannel() async throws {
        let api = try await APITestHarness.shared()
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: true)
        let channel = try await Self.channel(api, match)
        for (device, os) in [("new", "18.1"), ("old", "17.4")] { try await Self.register(api, user: user, device: device, os: os) }
        try await Self.register(api, user: user, device: "prod", os: "18.1", environment: "production")
        let capable = try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match, "deviceId": "new"])
        #expect(capable.status == 200 && capable.json["channelId"] as? String == channel, "\(capable.text)")
        #expect(try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match, "deviceId": "old"]).json["channelId"] == nil)
        #expect(try await api.call("POST", "/matches/\(match)/follow", as: user, json: ["deviceId": "prod"]).json["channelId"] == nil,
                "no channel in the production environment")
        #expect(try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match]).json["channelId"] == nil)
    }

    @Test("an activity registered by its channel is a channel row without a token; a token turns it back; bad bodies change nothing")
    func channelActivity() async throws {
        let api = try await APITestHarness.shared()
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: true)
        let channel = try await Self.channel(api, match)
        try await api.registerDevice(user, "phone")
        #expect(try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match, "deviceId": "phone"]).status == 200)
        func delivery() async throws -> (String, String?, String?, String) {
            let row = try #require(try await api.database.query(
                "SELECT delivery, channel_id, update_token, status FROM live_activities WHERE match_id = $1 AND user_id = $2 AND device_id = 'phone'",
                [match, user]).first)
            return (try row.decode(0), try row.decode(1, as: String?.self), try row.decode(2, as: String?.self), try row.decode(3))
        }
        let registered = try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["channelId": channel, "deviceId": "phone"])
        #expect(registered.status == 200 && registered.json["status"] as? String == "active", "\(registered.text)")
        #expect(try await delivery() == ("channel", channel, nil, "active"))
        let both = try await api.call("POST", "/matches/\(match)/activity-token", as: user,
                                      json: ["channelId": channel, "token": APITestHarness.hexToken(length: 160), "deviceId": "phone"])
        #expect(both.status == 400 && both.text.contains("exactly one"))
        #expect(try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["deviceId": "phone"]).status == 400)
        let unknown = try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["channelId": "QUJDRA==", "deviceId": "phone"])
        #expect(unknown.status == 409 && unknown.json["error"] as? String == "unknown_channel")
        #expect(try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["channelId": "not base64!", "deviceId": "phone"]).status == 400)
        #expect(try await delivery() == ("channel", channel, nil, "active"), "refused bodies changed nothing")
        let token = APITestHarness.hexToken(length: 160)
        #expect(try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["token": token, "deviceId": "phone"]).status == 200)
        #expect(try await delivery() == ("token", nil, token, "active"))
    }

    @Test("an unfollow on one channel device ends the user's other channel devices by a background push, token rows by an end push")
    func unfollowReachesTheOtherChannelDevices() async throws {
        let api = try await APITestHarness.shared()
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: true)
        let channel = try await Self.channel(api, match)
        var deviceTokens: [String: String] = [:]
        for device in ["a", "b", "c"] {
            let token = APITestHarness.hexToken()
            deviceTokens[device] = token
            try await Self.register(api, user: user, device: device, os: "18.2", extra: ["pushToken": token])
        }
        #expect(try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match, "deviceId": "a"]).status == 200)
        let updateToken = APITestHarness.hexToken(length: 160)
        for (device, body) in [("a", ["channelId": channel]), ("b", ["channelId": channel]), ("c", ["token": updateToken])] {
            var json: [String: Any] = body
            json["deviceId"] = device
            #expect(try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: json).status == 200)
        }
        let response = try await api.call("DELETE", "/user/follow/match", as: user, json: ["matchId": match, "deviceId": "a"])
        #expect(response.status == 200 && response.json["endedDevices"] as? [String] == ["a", "b", "c"], "\(response.text)")
        #expect(try await api.activities(match, user).values.allSatisfy { $0.status == "ended" && $0.reason == "user_unfollow" })
        let background = try await JobCollector.shared.wait(matchId: match, kind: .background, count: 1)
        let ends = try await JobCollector.shared.wait(matchId: match, kind: .liveActivityEnd, count: 1)
        #expect(background.map { $0.job.targets[0].deviceId } == ["b"], "the acting device a ended its own; c is a token row")
        #expect(background[0].job.targets[0].token == deviceTokens["b"] && background[0].job.priority == 5 && background[0].job.schema == 3)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(background[0].job.payload.utf8)) as? [String: Any])
        #expect((body["aps"] as? [String: Any])?["content-available"] as? Int == 1)
        #expect((body["sightscreen"] as? [String: Any])?["matchId"] as? String == match)
        #expect((body["sightscreen"] as? [String: Any])?["type"] as? String == "activity-end")
        #expect(ends.map { $0.job.targets[0].token } == [updateToken])
    }

    @Test("a follow of a live match push-starts the user's capable devices on the channel, the others on tokens")
    func followStartsCapableDevicesOnTheChannel() async throws {
        let api = try await APITestHarness.shared()
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: true)
        let channel = try await Self.channel(api, match)
        for (device, os) in [("new", "18.2"), ("old", "17.5")] {
            try await Self.register(api, user: user, device: device, os: os, extra: ["pushToStartToken": APITestHarness.hexToken()])
        }
        #expect(try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match]).status == 200)
        let starts = try await JobCollector.shared.wait(matchId: match, kind: .liveActivityStart, count: 2)
        func aps(_ device: String) throws -> [String: Any] {
            let job = try #require(starts.first { $0.job.targets[0].deviceId == device }?.job)
            return try #require((try JSONSerialization.jsonObject(with: Data(job.payload.utf8)) as? [String: Any])?["aps"] as? [String: Any])
        }
        #expect(try aps("new")["input-push-channel"] as? String == channel)
        #expect(try aps("old")["input-push-channel"] == nil)
        #expect(try aps("new")["timestamp"] as? Int == aps("old")["timestamp"] as? Int, "the same start otherwise")
    }
}
