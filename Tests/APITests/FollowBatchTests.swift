@testable import API
import Contracts
import Foundation
import Postgres
import SharedTestSupport
import Testing

/// Follows by group commit, over real HTTP, PostgreSQL and Kafka: many users at once, racing
/// duplicates, an unknown match inside a batch, ids that need quoting, a failed produce.
@Suite("Follow batches")
struct FollowBatchTests {
    /// An api whose batches surely form: one statement at a time, each waiting 20 ms for company.
    static func batchingAPI() async throws -> APITestHarness {
        try await APITestHarness.make { $0.followBatch = .init(maxBatch: 64, concurrency: 1, maxWait: .milliseconds(20)) }
    }

    /// Follows concurrently; the responses in the order of `requests` (user, path, json).
    static func follow(_ api: APITestHarness, _ requests: [(user: String, path: String, json: [String: Any]?)]) async throws -> [WireResponse] {
        let calls = requests.map { (user: $0.user, path: $0.path, body: $0.json.map { try! JSONSerialization.data(withJSONObject: $0) }) }
        return try await withThrowingTaskGroup(of: (Int, WireResponse).self) { group in
            for (index, call) in calls.enumerated() {
                group.addTask {
                    let json = try call.body.map { try JSONSerialization.jsonObject(with: $0) }
                    return (index, try await api.call("POST", call.path, as: call.user, json: json))
                }
            }
            var responses = [WireResponse?](repeating: nil, count: calls.count)
            for try await (index, response) in group { responses[index] = response }
            return responses.map { $0! }
        }
    }

    static func count(_ api: APITestHarness, _ sql: String, _ parameters: [PostgresValue?]) async throws -> Int {
        try await api.database.query(sql, parameters)[0].decode("n")
    }

    @Test func manyUsersFollowingALiveMatchAtOnceEachGetTheirRowsAndOneStartPerDevice() async throws {
        let api = try await Self.batchingAPI()
        defer { api.server.stopInBackground() }
        let match = APITestHarness.unique("m")
        try await api.seedMatch(match, live: true)
        let users = (0..<30).map { _ in APITestHarness.unique("u") }
        var tokens: Set<String> = []
        for user in users {
            for device in ["a", "b"] { tokens.insert(try #require(try await api.registerDevice(user, device))) }
        }

        let responses = try await Self.follow(api, users.enumerated().map { index, user in
            index.isMultiple(of: 2) ? (user, "/user/follow/match", ["matchId": match]) : (user, "/matches/\(match)/follow", nil)
        })
        for response in responses {
            #expect(response.status == 200, "\(response.text)")
            #expect(response.json["startedDevices"] as? [String] == ["a", "b"])
            #expect(response.json["isLive"] as? Bool == true)
            #expect((response.json["displayState"] as? [String: Any])?["matchId"] as? String == match)
        }
        #expect(try await Self.count(api, "SELECT count(*) AS n FROM match_follows WHERE match_id = $1", [match]) == 30)
        #expect(try await Self.count(
            api, "SELECT count(*) AS n FROM live_activities WHERE match_id = $1 AND status = 'pending' AND start_attempts = 1", [match]) == 60)

        let jobs = try await JobCollector.shared.wait(matchId: match, kind: .liveActivityStart, count: 60)
        try await Task.sleep(for: .seconds(2))
        let all = await JobCollector.shared.seen(matchId: match)
        #expect(all.count == 60, "exactly one start per device")
        #expect(Set(jobs.map { $0.job.targets[0].token }) == tokens)
        #expect(Set(all.map(\.job.jobId)) == Set(users.flatMap { user in ["a", "b"].map { "start:\(match):\(user):\($0):1" } }))
        #expect(api.service.metrics.followBatchSize.snapshot.sum == 30, "30 distinct follows went through the batches")
    }

    @Test func racingDuplicatesOfOneUserAndMatchGiveOneFollowAndOneStartPerDevice() async throws {
        let api = try await Self.batchingAPI()
        defer { api.server.stopInBackground() }
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await api.seedMatch(match, live: true)
        try await api.registerDevice(user, "phone")
        try await api.registerDevice(user, "tablet")

        let responses = try await Self.follow(api, (0..<8).map { index in
            index.isMultiple(of: 2)
                ? (user, "/user/follow/match", ["matchId": match, "deviceId": index < 4 ? "phone" : "tablet"])
                : (user, "/matches/\(match)/follow", ["deviceId": "tablet"])
        })
        var starters = 0
        for response in responses {
            #expect(response.status == 200, "\(response.text)")
            let started = response.json["startedDevices"] as? [String]
            #expect(started == ["phone", "tablet"] || started == [], "a duplicate shares the outcome or finds the rows started")
            if started == ["phone", "tablet"] { starters += 1 }
        }
        #expect(starters >= 1)
        #expect(try await Self.count(api, "SELECT count(*) AS n FROM match_follows WHERE match_id = $1 AND user_id = $2", [match, user]) == 1)
        let rows = try await api.activities(match, user)
        #expect(rows.count == 2 && rows.values.allSatisfy { $0.status == "pending" })
        #expect(try await Self.count(api, "SELECT max(start_attempts) AS n FROM live_activities WHERE match_id = $1", [match]) == 1)

        _ = try await JobCollector.shared.wait(matchId: match, kind: .liveActivityStart, count: 2)
        try await Task.sleep(for: .seconds(2))
        let jobs = await JobCollector.shared.seen(matchId: match)
        #expect(jobs.count == 2, "one start per device")
        #expect(Set(jobs.map(\.job.jobId)) == ["start:\(match):\(user):phone:1", "start:\(match):\(user):tablet:1"])
    }

    @Test func anUnknownMatchInABatchFailsOnlyItsRequest() async throws {
        let api = try await Self.batchingAPI()
        defer { api.server.stopInBackground() }
        let (live, upcoming, unknown) = (APITestHarness.unique("m"), APITestHarness.unique("m"), APITestHarness.unique("nope"))
        try await api.seedMatch(live, live: true)
        try await api.seedMatch(upcoming, live: false, startsAt: Date().addingTimeInterval(3600))
        let users = (0..<6).map { _ in APITestHarness.unique("u") }
        for user in users { try await api.registerDevice(user, "phone") }

        // Over HTTP: the unknown match answers 404, its neighbours 200.
        let responses = try await Self.follow(api, users.enumerated().map { index, user in
            (user, "/user/follow/match", ["matchId": [live, unknown, upcoming][index % 3]])
        })
        for (index, response) in responses.enumerated() {
            switch index % 3 {
            case 0: #expect(response.status == 200 && response.json["startedDevices"] as? [String] == ["phone"], "\(response.text)")
            case 1: #expect(response.status == 404 && response.json["error"] as? String == "not_found", "\(response.text)")
            default: #expect(response.status == 200 && response.json["isLive"] as? Bool == false, "\(response.text)")
            }
        }
        #expect(try await Self.count(api, "SELECT count(*) AS n FROM match_follows WHERE match_id = $1", [unknown]) == 0)

        // In one statement for sure: the store answers nil for the unknown pair only.
        let user = APITestHarness.unique("u")
        try await api.registerDevice(user, "phone")
        let keys = [live, unknown, upcoming].map { FollowFlow.FollowKey(userId: user, matchId: $0) }
        let outcomes = try await api.service.follows.follow(keys, now: Date())
        #expect(outcomes.count == 3)
        #expect(outcomes[0]?.match.isLive == true && outcomes[0]?.starts.map(\.deviceId) == ["phone"])
        #expect(outcomes[1] == nil)
        #expect(outcomes[2]?.match.isLive == false && outcomes[2]?.starts.isEmpty == true)
        #expect(try await api.follows(live, user))
        #expect(try await api.follows(upcoming, user))
        #expect(try await !api.follows(unknown, user))
    }

    @Test func idsThatNeedQuotingSurviveTheArrayParameters() async throws {
        let api = try await APITestHarness.shared()
        let match = APITestHarness.unique("m")
        try await api.seedMatch(match, live: false, startsAt: Date().addingTimeInterval(3600))
        let odd = [#"u"quote"#, #"u\back,slash"#, "u{brace} NULL", "u ünïcode", "NULL"].map { "\($0)-\(UUID().uuidString.prefix(8))" }
        let outcomes = try await api.service.follows.follow(odd.map { FollowFlow.FollowKey(userId: $0, matchId: match) }, now: Date())
        #expect(outcomes.allSatisfy { $0 != nil })
        let rows = try await api.database.query("SELECT user_id FROM match_follows WHERE match_id = $1", [match])
        #expect(Set(try rows.map { try $0.decode("user_id", as: String.self) }) == Set(odd))
    }

    @Test func aFailedProduceAnswers503AndMarksTheRowsUnsent() async throws {
        let dead = try await APITestHarness.make(jobBrokers: "127.0.0.1:1", messageTimeout: .seconds(2))
        defer { dead.server.stopInBackground() }
        let (user, match) = (APITestHarness.unique("u"), APITestHarness.unique("m"))
        try await dead.seedMatch(match, live: true)
        try await dead.registerDevice(user, "phone")
        let failed = try await dead.call("POST", "/user/follow/match", as: user, json: ["matchId": match])
        #expect(failed.status == 503, "\(failed.text)")
        #expect(failed.json["error"] as? String == "unavailable")
        #expect(try await Self.count(
            dead, "SELECT count(*) AS n FROM live_activities WHERE match_id = $1 AND status = 'pending' AND updated_at = 'epoch'", [match]) == 1)

        // The retry (here through a working producer) starts the device again at once.
        let retried = try await APITestHarness.shared().call("POST", "/user/follow/match", as: user, json: ["matchId": match])
        #expect(retried.status == 200 && retried.json["startedDevices"] as? [String] == ["phone"], "\(retried.text)")
        let jobs = try await JobCollector.shared.wait(matchId: match, kind: .liveActivityStart, count: 1)
        #expect(jobs.map(\.job.jobId) == ["start:\(match):\(user):phone:2"])
        try? await dead.producer.shutdown(timeout: .milliseconds(100))
    }
}
