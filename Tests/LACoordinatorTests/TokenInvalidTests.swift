import BroadcastChannels
import Contracts
import Foundation
import Postgres
import Runtime
import Testing
@testable import LACoordinator

/// push.token-invalid handling against the real PostgreSQL (start it with scripts/stack servers).
@Suite("token-invalid with PostgreSQL")
struct TokenInvalidTests {
    static func message(_ token: String, kind: TokenKind = .update, match: String?, user: String = "u1", device: String = "d1") throws -> [UInt8] {
        try MessageCodec.encode(TokenInvalid(token: token, tokenKind: kind, matchId: match, userId: user, deviceId: device,
                                             reason: "Unregistered", apnsTimestamp: 1_800_000_000_000))
    }

    static func row(_ database: PostgresClient, _ match: String, user: String = "u1", device: String = "d1") async throws -> (String, String?, String?) {
        let rows = try await database.query(
            "SELECT status, end_reason, update_token FROM live_activities WHERE match_id = $1 AND user_id = $2 AND device_id = $3",
            [match, user, device])
        let row = try #require(rows.first)
        return (try row.decode(0, as: String.self), try row.decode(1, as: String?.self), try row.decode(2, as: String?.self))
    }

    @Test("update token: ended/token_invalid only while the row still holds that token; a rotated token survives a stale 410")
    func updateToken() async throws {
        let database = try await TestSupport.database()
        let registry = MetricsRegistry()
        let handler = TokenInvalidHandler(database: database, logger: TestSupport.quiet, metrics: CoordinatorMetrics(registry: registry))
        let match = TestSupport.unique("ti")
        try await database.execute(
            """
            INSERT INTO live_activities (match_id, user_id, device_id, status, update_token) VALUES
              ($1, 'u1', 'd1', 'active', 'old-token'), ($1, 'u1', 'd2', 'active', 'other-device-token')
            """, [match])
        // The app rotated its token before the 410 for the old one arrived.
        try await database.execute("UPDATE live_activities SET update_token = 'new-token' WHERE match_id = $1 AND device_id = 'd1'", [match])
        #expect(try await handler.handle(Self.message("old-token", match: match)) == .stale)
        #expect(try await Self.row(database, match) == ("active", nil, "new-token"))

        #expect(try await handler.handle(Self.message("new-token", match: match)) == .ended)
        #expect(try await Self.row(database, match) == ("ended", "token_invalid", "new-token"))
        #expect(try await Self.row(database, match, device: "d2").0 == "active", "the user's other device is untouched")
        // Redelivery is harmless.
        #expect(try await handler.handle(Self.message("new-token", match: match)) == .stale)
        // Without a matchId the token alone identifies the row.
        #expect(try await handler.handle(Self.message("other-device-token", match: nil, device: "d2")) == .ended)
        #expect(try await Self.row(database, match, device: "d2").1 == "token_invalid")
        #expect(registry.render().contains(#"la_token_invalid_total{outcome="stale"} 2"#))
        await database.shutdown()
    }

    @Test("channel: a broadcast's ChannelNotRegistered makes the active channel invalid; a stale id changes nothing")
    func channel() async throws {
        let database = try await TestSupport.database()
        let handler = TokenInvalidHandler(database: database, logger: TestSupport.quiet, metrics: CoordinatorMetrics(registry: MetricsRegistry()))
        let match = TestSupport.unique("bc")
        let store = BroadcastChannelStore(database: database)
        let generation = try #require(try await store.beginCreate(matchId: match, environment: .sandbox, storagePolicy: 0, now: Date()))
        #expect(try await store.activate(matchId: match, environment: .sandbox, generation: generation, channelId: "Q0g\(match)=", now: Date()))
        func lost(_ id: String) throws -> [UInt8] {
            try MessageCodec.encode(TokenInvalid(token: id, tokenKind: .channel, matchId: match, userId: "", deviceId: "",
                                                 reason: "ChannelNotRegistered", apnsTimestamp: nil))
        }
        try await database.execute(
            "INSERT INTO live_activities (match_id, user_id, device_id, status, delivery, channel_id) VALUES ($1, 'u1', 'd1', 'active', 'channel', $2)",
            [match, "Q0g\(match)="])
        #expect(try await handler.handle(lost("bm90LWl0")) == .stale)
        #expect(try await store.activeChannel(matchId: match, environment: .sandbox) == "Q0g\(match)=")
        #expect(try await handler.handle(lost("Q0g\(match)=")) == .ended)
        let row = try #require(try await store.channels(matchId: match).first)
        #expect(row.state == .invalid && row.failureReason == "ChannelNotRegistered")
        let ended = try await Self.row(database, match)
        #expect(ended.0 == "ended" && ended.1 == "token_invalid", "the channel's activities end; the orchestrator starts them again")
        #expect(try await handler.handle(lost("Q0g\(match)=")) == .stale, "redelivery is harmless")
        // A device token message still needs its user and device.
        #expect(try await handler.handle(Self.message("tok", kind: .device, match: match, user: "", device: "")) == .bad)
        await database.shutdown()
    }

    @Test("push-to-start token: cleared on the device if unchanged, pending rows ended; a re-registered token keeps them")
    func pushToStart() async throws {
        let database = try await TestSupport.database()
        let handler = TokenInvalidHandler(database: database, logger: TestSupport.quiet, metrics: CoordinatorMetrics(registry: MetricsRegistry()))
        let match = TestSupport.unique("pts")
        try await database.execute(
            """
            INSERT INTO devices (user_id, device_id, push_to_start_token, push_token) VALUES
              ('u1', 'd1', 'pts-1', 'device-1'), ('u2', 'd1', 'pts-new', NULL);
            """)
        try await database.execute(
            """
            INSERT INTO live_activities (match_id, user_id, device_id, status) VALUES
              ($1, 'u1', 'd1', 'pending'), ($1, 'u2', 'd1', 'pending')
            """, [match])
        #expect(try await handler.handle(Self.message("pts-1", kind: .pushToStart, match: match)) == .ended)
        #expect(try await Self.row(database, match) == ("ended", "token_invalid", nil))
        let device = try await database.query("SELECT push_to_start_token FROM devices WHERE user_id = 'u1' AND device_id = 'd1'")
        #expect(try device.first?.decode(0, as: String?.self) == nil)

        // u2 registered a new push-to-start token after the dead one was used: nothing changes.
        #expect(try await handler.handle(Self.message("pts-old", kind: .pushToStart, match: match, user: "u2")) == .stale)
        #expect(try await Self.row(database, match, user: "u2").0 == "pending")

        // Device token: cleared only while it still matches.
        #expect(try await handler.handle(Self.message("device-x", kind: .device, match: nil)) == .stale)
        #expect(try await handler.handle(Self.message("device-1", kind: .device, match: nil)) == .ended)
        await database.shutdown()
    }

    @Test("bad messages are counted and skipped, never thrown")
    func badMessages() async throws {
        let database = try await TestSupport.database()
        let registry = MetricsRegistry()
        let handler = TokenInvalidHandler(database: database, logger: TestSupport.quiet, metrics: CoordinatorMetrics(registry: registry))
        #expect(try await handler.handle(Array("not json".utf8)) == .bad)
        #expect(try await handler.handle(Array(#"{"schema": 99}"#.utf8)) == .bad)
        #expect(try await handler.handle(Array(#"{"schema": 1, "token": "t"}"#.utf8)) == .bad)
        #expect(try await handler.handle(Self.message("", match: "m")) == .bad)
        #expect(registry.render().contains(#"la_token_invalid_total{outcome="bad"} 4"#))
        await database.shutdown()
    }
}
