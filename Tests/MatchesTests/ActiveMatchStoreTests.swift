import Foundation
import Matches
import Postgres
import Runtime
import ServerTestSupport
import Testing

/// `ActiveMatchStore` and `MatchStore`'s operator reads against PostgreSQL: the detector's state saved and loaded as
/// JSON (never going back to an older seq), the report's last event, the admin counts.
@Suite struct ActiveMatchStoreTests {
    static let logger = TestServers.quietLogger("matches-tests")

    static func database() async throws -> PostgresClient {
        try await TestServers.database(schemaPrefix: "active_matches", logger: logger)
    }

    @Test("detector state: saved with its display state, loaded back, a lower seq never overwrites a higher one")
    func detectorState() async throws {
        let database = try await Self.database()
        let store = ActiveMatchStore(database: database)
        #expect(try await store.detectorState(matchId: "m") == nil)
        try await store.saveDetectorState(matchId: "m", seq: 5, detectorState: PostgresJSON(#"{"seq":5}"#),
                                          displayState: PostgresJSON(#"{"lockScreen":{"headline":"A 10/1"},"resultLine":"won"}"#),
                                          keyEventAt: 1_800_000_000_000)
        try await store.saveDetectorState(matchId: "m", seq: 4, detectorState: PostgresJSON(#"{"seq":4}"#), displayState: nil)
        let stored = try #require(try await store.detectorState(matchId: "m"))
        #expect(stored.detectorState.description.contains("5") && stored.displayState?.description.contains("A 10/1") == true)
        let keyAt = try await database.query("SELECT extract(epoch FROM last_key_event_at)::bigint AS at FROM active_matches").first?
            .decode("at", as: Int64.self)
        #expect(keyAt == 1_800_000_000)

        let event = try #require(try await store.lastEvent(matchId: "m"))
        #expect(event.seq == 5 && event.headline == "A 10/1" && event.resultLine == "won" && event.at.hasSuffix("Z") && event.at.count == 20)
        try await database.execute("INSERT INTO active_matches (match_id, seq) VALUES ('fresh', 0)")
        #expect(try await store.lastEvent(matchId: "fresh") == nil, "seq 0: no event yet")
        #expect(try await store.lastEvent(matchId: "unknown") == nil)
        await database.shutdown()
    }

    @Test("counts: tracked matches are those whose poller state is not ended (every enum case is accepted); live matches; the report's summary")
    func counts() async throws {
        let database = try await Self.database()
        #expect(ActiveMatchPollerState.allCases == [.polling, .paused, .ended], "every state the CHECK constraint accepts")
        for (match, state) in zip(["a", "b", "c"], ActiveMatchPollerState.allCases) {
            try await database.execute("INSERT INTO active_matches (match_id, poller_state) VALUES ($1, $2)", [match, state.rawValue])
        }
        #expect(try await ActiveMatchStore(database: database).trackedCount() == 2)
        try await database.execute("INSERT INTO matches (match_id, status, is_live, card) VALUES ('a', 'Live', true, '{\"title\":\"A v B\"}')")
        try await database.execute("INSERT INTO matches (match_id, status, is_live) VALUES ('b', 'NS', false)")
        let matches = MatchStore(database: database)
        #expect(try await matches.liveCount() == 1)
        #expect(try await matches.summary(matchId: "a") == MatchStore.Summary(title: "A v B", status: "Live", isLive: true))
        #expect(try await matches.summary(matchId: "b")?.title == nil)
        #expect(try await matches.summary(matchId: "z") == nil)
        await database.shutdown()
    }
}
