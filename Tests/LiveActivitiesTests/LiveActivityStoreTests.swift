import Foundation
import LiveActivities
import Postgres
import Runtime
import ServerTestSupport
import Testing

/// `LiveActivityStore` against PostgreSQL on its own: every transition of a row, its compare-and-set guards, and
/// the enums against the table's constraints.
@Suite struct LiveActivityStoreTests {
    static let logger = TestServers.quietLogger("live-activities-tests")

    static func database() async throws -> PostgresClient {
        try await TestServers.database(schemaPrefix: "la_store", logger: logger)
    }

    struct Row: Equatable, CustomStringConvertible {
        var status: String
        var reason: String?
        var attempts: Int
        var dayStart: Int
        var token: String?
        var activated: Bool
        var description: String { "\(status)/\(reason ?? "-") \(attempts)/\(dayStart) \(token ?? "-") \(activated ? "activated" : "")" }
    }

    static func row(_ database: PostgresClient, _ match: String, _ user: String = "u1", _ device: String = "d1") async throws -> Row? {
        try await database.query(
            """
            SELECT status, end_reason, start_attempts, day_start_attempt, update_token, activated_at IS NOT NULL AS activated
            FROM live_activities WHERE match_id = $1 AND user_id = $2 AND device_id = $3
            """, [match, user, device]).first.map {
            Row(status: try $0.decode("status"), reason: try $0.decode("end_reason", as: String?.self),
                attempts: try $0.decode("start_attempts"), dayStart: try $0.decode("day_start_attempt"),
                token: try $0.decode("update_token", as: String?.self), activated: try $0.decode("activated"))
        }
    }

    static func seed(_ database: PostgresClient, match: String, closeOfPlay: Bool = false) async throws {
        try await database.execute("INSERT INTO matches (match_id, status, is_live, close_of_play) VALUES ($1, $2, true, $3)",
                                   [match, closeOfPlay ? "Stump Day 1" : "1st Innings", closeOfPlay])
        try await database.execute("INSERT INTO match_follows (user_id, match_id) VALUES ('u1', $1)", [match])
        try await database.execute("INSERT INTO devices (user_id, device_id, push_to_start_token) VALUES ('u1', 'd1', 'pts-1')")
    }

    @Test("a row through every transition: start, token, rotation, token invalid, re-start, stumps, new day, rollover, unfollow")
    func everyTransition() async throws {
        let database = try await Self.database()
        let store = LiveActivityStore(database: database)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await Self.seed(database, match: "m")
        func tx<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
            try await database.withTransaction { try await body($0) }
        }

        #expect(try await tx { try await LiveActivityStore.insertPending(on: $0, matchId: "m", userId: "u1", deviceId: "d1", now: now) })
        let again = try await tx { try await LiveActivityStore.insertPending(on: $0, matchId: "m", userId: "u1", deviceId: "d1", now: now) }
        #expect(!again, "a second first start does nothing")
        #expect(try await Self.row(database, "m") == Row(status: "pending", reason: nil, attempts: 1, dayStart: 1, token: nil, activated: false))

        #expect(try await store.registerUpdateToken("t1", userId: "u1", matchId: "m", deviceId: "d1", now: now) == .active(rotated: false))
        #expect(try await store.registerUpdateToken("t2", userId: "u1", matchId: "m", deviceId: "d1", now: now) == .active(rotated: true))
        #expect(try await Self.row(database, "m") == Row(status: "active", reason: nil, attempts: 1, dayStart: 1, token: "t2", activated: true))

        #expect(try await store.endUpdateToken("t1", userId: "u1", deviceId: "d1", matchId: "m") == 0, "a stale answer for a rotated token")
        #expect(try await store.endUpdateToken("t2", userId: "u1", deviceId: "d1", matchId: "m") == 1)
        let wrongAttempts = try await tx { try await LiveActivityStore.restart(on: $0, matchId: "m", userId: "u1", deviceId: "d1",
                                                                                endedAs: .tokenInvalid, attempts: 5, now: now) }
        #expect(!wrongAttempts, "compare-and-set on the attempts")
        #expect(try await tx { try await LiveActivityStore.restart(on: $0, matchId: "m", userId: "u1", deviceId: "d1",
                                                                    endedAs: .tokenInvalid, attempts: 1, now: now) })
        #expect(try await Self.row(database, "m") == Row(status: "pending", reason: nil, attempts: 2, dayStart: 1, token: nil, activated: false),
                "a re-start after token_invalid counts against the day's budget")

        #expect(try await store.registerUpdateToken("t3", userId: "u1", matchId: "m", deviceId: "d1", now: now) == .active(rotated: false))
        #expect(try await store.endDay("m") == 1)
        #expect(try await Self.row(database, "m")?.reason == "day_end")
        #expect(try await tx { try await LiveActivityStore.restart(on: $0, matchId: "m", userId: "u1", deviceId: "d1",
                                                                    endedAs: .dayEnd, attempts: 2, now: now) })
        #expect(try await Self.row(database, "m") == Row(status: "pending", reason: nil, attempts: 3, dayStart: 3, token: nil, activated: false),
                "a new day is a fresh start")

        #expect(try await store.registerUpdateToken("t4", userId: "u1", matchId: "m", deviceId: "d1", now: now) == .active(rotated: false))
        let wrongToken = try await tx { try await LiveActivityStore.rollOver(on: $0, matchId: "m", userId: "u1", deviceId: "d1",
                                                                              attempts: 3, updateToken: "t3", now: now) }
        #expect(!wrongToken, "the rollover only ends the token it read")
        #expect(try await tx { try await LiveActivityStore.rollOver(on: $0, matchId: "m", userId: "u1", deviceId: "d1",
                                                                     attempts: 3, updateToken: "t4", now: now) })
        #expect(try await Self.row(database, "m") == Row(status: "pending", reason: nil, attempts: 4, dayStart: 4, token: nil, activated: false))

        let ended = try await tx { try await LiveActivityStore.endForUser(on: $0, userId: "u1", matchId: "m", reason: .userUnfollow, now: now) }
        #expect(ended == [.init(deviceId: "d1", updateToken: nil, apnsEnvironment: "production")])
        #expect(try await Self.row(database, "m")?.reason == "user_unfollow")
        await database.shutdown()
    }

    @Test("stumps ends what runs and token_invalid rows; the match's end closes day_end rows; rows the user ended keep their reason")
    func dayAndMatchEnds() async throws {
        let database = try await Self.database()
        let store = LiveActivityStore(database: database)
        for (user, status, reason) in [("active", "active", nil), ("pending", "pending", nil), ("dead", "ended", "token_invalid"),
                                       ("gone", "ended", "user_unfollow")] as [(String, String, String?)] {
            try await database.execute("INSERT INTO live_activities (match_id, user_id, device_id, status, end_reason) VALUES ('m', $1, 'd', $2, $3)",
                                       [user, status, reason])
        }
        #expect(try await store.endDay("m") == 3)
        #expect(try await Self.row(database, "m", "gone", "d")?.reason == "user_unfollow")
        #expect(try await store.endDay("m") == 0, "a replay changes nothing")
        #expect(try await store.endMatch("m") == 3)
        let reasons = try await database.query("SELECT user_id, end_reason FROM live_activities WHERE match_id = 'm' ORDER BY user_id")
            .map { "\(try $0.decode("user_id", as: String.self)):\(try $0.decode("end_reason", as: String.self))" }
        #expect(reasons == ["active:match_end", "dead:match_end", "gone:user_unfollow", "pending:match_end"])
        await database.shutdown()
    }

    @Test("at close of play a token posted overnight leaves the row ended/day_end; without a follow it is refused")
    func closeOfPlayToken() async throws {
        let database = try await Self.database()
        let store = LiveActivityStore(database: database)
        try await Self.seed(database, match: "m", closeOfPlay: true)
        #expect(try await store.registerUpdateToken("t", userId: "u1", matchId: "m", deviceId: "d1", now: Date()) == .closeOfPlay)
        let row = try await Self.row(database, "m")
        #expect(row?.status == "ended" && row?.reason == "day_end")
        #expect(try await store.registerUpdateToken("t", userId: "stranger", matchId: "m", deviceId: "d1", now: Date()) == .notFollowing)
        await database.shutdown()
    }

    @Test("a refused push-to-start token is cleared and the device's pending rows end, unless the device has one again")
    func pushToStartTokenRefused() async throws {
        let database = try await Self.database()
        let store = LiveActivityStore(database: database)
        try await Self.seed(database, match: "m")
        try await database.execute("INSERT INTO live_activities (match_id, user_id, device_id, status) VALUES ('m', 'u1', 'd1', 'pending')")
        let stale = try await store.endPushToStartToken("other", userId: "u1", deviceId: "d1", matchId: nil)
        #expect(stale == (0, 0), "a token the device no longer has: the device re-registered, its rows stay")
        let refused = try await store.endPushToStartToken("pts-1", userId: "u1", deviceId: "d1", matchId: nil)
        #expect(refused == (1, 1))
        #expect(try await Self.row(database, "m")?.reason == "token_invalid")
        await database.shutdown()
    }

    @Test("the enums are exactly what the table accepts")
    func enumsMatchTheConstraints() async throws {
        let database = try await Self.database()
        for (index, reason) in LiveActivityEndReason.allCases.enumerated() {
            try await database.execute("INSERT INTO live_activities (match_id, user_id, device_id, status, end_reason) VALUES ('m', $1, 'd', 'ended', $2)",
                                       ["u\(index)", reason.rawValue])
        }
        for (index, status) in LiveActivityStatus.allCases.enumerated() where status != .ended {
            try await database.execute("INSERT INTO live_activities (match_id, user_id, device_id, status) VALUES ('m', $1, 'd', $2)",
                                       ["s\(index)", status.rawValue])
        }
        await #expect(throws: (any Error).self) {
            try await database.execute("INSERT INTO live_activities (match_id, user_id, device_id, status, end_reason) VALUES ('m', 'x', 'd', 'ended', 'bogus')")
        }
        for mode in LiveActivityDeliveryMode.allCases {
            try await database.execute(
                "INSERT INTO live_activities (match_id, user_id, device_id, status, delivery, channel_id) VALUES ('m', $1, 'd', 'active', $1, $2)",
                [mode.rawValue, mode == .channel ? "Y2g=" : nil])
        }
        await database.shutdown()
    }
}
