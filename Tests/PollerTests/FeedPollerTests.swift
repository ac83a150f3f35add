import FeedHistory
import Contracts
import FakeFeed
import Foundation
import Kafka
import Matches
import Postgres
import Runtime
import Testing
@testable import Poller

/// The poller against fake-sportmonks over real HTTP, publishing to real Kafka, remembering in real PostgreSQL.
@Suite struct FeedPollerTests {
    static let include = "localteam,visitorteam,league,venue,runs,balls.score"

    func poller(_ fake: FakeSportMonks, _ database: PostgresClient, _ producer: KafkaProducer, _ metrics: PollerMetrics) -> FeedPoller {
        FeedPoller(client: fake.client, store: MatchStore(database: database), history: FeedBallStore(database: database), publisher: PollerTestSupport.publisher(producer),
                   include: Self.include, clock: fake.clock, metrics: metrics, logger: PollerTestSupport.logger)
    }

    /// A fresh schema, a producer, and fake-sportmonks serving 1304076 paused after `delivery` deliveries.
    func pausedMatch(at delivery: Int) async throws
        -> (database: PostgresClient, schema: String, producer: KafkaProducer, fake: FakeSportMonks, id: Int)
    {
        let (database, schema) = try await PollerTestSupport.database()
        let producer = try PollerTestSupport.producer()
        let offset = PollerTestSupport.uniqueOffset()
        let id = 1304076 + offset
        let fake = try FakeSportMonks(ids: [1304076], configuration: .init(idOffset: offset, lingerSteps: 0))
        try fake.feed.start(id)
        try fake.feed.seek(id, delivery: delivery)
        try fake.feed.pause(id)
        return (database, schema, producer, fake, id)
    }

    @Test func publishesOneSnapshotPerChangeAndNoneWhenUnchanged() async throws {
        let (database, schema, producer, fake, id) = try await pausedMatch(at: 10)
        defer { fake.stop() }
        let metrics = PollerMetrics(registry: MetricsRegistry())

        let first = poller(fake, database, producer, metrics)
        #expect(try await first.pollOnce().published == 1)
        let unchanged = try await first.pollOnce()
        #expect(unchanged.published == 0 && unchanged.unchanged == 1, "nothing changed: nothing published")
        try fake.feed.seek(id, delivery: 11)
        #expect(try await first.pollOnce().published == 1)
        #expect(try await first.pollOnce().published == 0)

        // A restarted poller reads the last published hash back from matches.feed_hash.
        let restarted = poller(fake, database, producer, metrics)
        let afterRestart = try await restarted.pollOnce()
        #expect(afterRestart.published == 0 && afterRestart.unchanged == 1, "a restart does not republish")

        let row = try #require(try await database.query("SELECT is_live, status, card, feed_hash FROM matches WHERE match_id = $1",
                                                         [String(id)]).first)
        #expect(try row.decode("is_live", as: Bool.self))
        #expect(try row.decode("status", as: String.self) == "1st Innings")
        #expect(try row.decode("feed_hash", as: String?.self)?.count == 16)
        let card = try row.decode("card", as: PostgresJSON.self).decode(MatchCard.self)
        #expect(card.matchId == String(id) && card.title.contains(" vs ") && card.phase == .live)

        // The match ends and drops out of /livescores: one final GET /fixtures/{id}, published, no longer live.
        let match = try #require(fake.feed.match(id))
        try fake.feed.seek(id, delivery: match.match.totalDeliveries, phase: .finished)
        try fake.feed.resume(id)
        fake.clock.advance(by: 1)
        #expect(fake.feed.liveFixtureIds().isEmpty)
        let final = try await restarted.pollOnce()
        #expect(final.finalFetches == 1 && final.published == 1)
        #expect(try await restarted.pollOnce().finalFetches == 0, "fetched once")
        let ended = try #require(try await database.query("SELECT is_live, status FROM matches WHERE match_id = $1", [String(id)]).first)
        #expect(try ended.decode("is_live", as: Bool.self) == false)
        #expect(try ended.decode("status", as: String.self) == "Finished")

        let snapshots = try await PollerTestSupport.snapshots(matchId: String(id), expected: 3)
        #expect(snapshots.count == 3, "one snapshot per change: deliveries 10, 11, finished")
        let statuses = snapshots.map { $0.fixture["status"] }
        #expect(statuses == [.string("1st Innings"), .string("1st Innings"), .string("Finished")])
        #expect(snapshots[0].fixture != snapshots[1].fixture)
        #expect(metrics.published.count == 3)
        // A chain: each snapshot carries only the deliveries the previous one did not, also after the restart
        // (the restarted poller read its cursor back from feed_cursors and feed_balls).
        let total = match.match.totalDeliveries
        #expect(snapshots.map(\.seq) == [1, 2, 3] && snapshots.map(\.basis) == [0, 1, 2])
        #expect(snapshots.map { $0.balls?.count ?? -1 } == [10, 1, total - 11])
        #expect(snapshots.map(\.ballCount) == [10, 11, total])
        #expect(snapshots.allSatisfy { $0.fixture["balls"] == nil })
        let history = try await FeedBallStore(database: database).balls(matchId: String(id), asOf: 3)
        #expect(history.count == total)
        #expect(try await FeedBallStore(database: database).balls(matchId: String(id), asOf: 1).count == 10)
        try await producer.shutdown()
        await PollerTestSupport.dropSchema(schema, database)
    }

    @Test("two pollers never extend one chain: the one whose cursor moved re-reads it, and seqs stay unique")
    func aLeaderChangeNeverForksTheChain() async throws {
        let (database, schema, producer, fake, id) = try await pausedMatch(at: 5)
        defer { fake.stop() }
        let metrics = PollerMetrics(registry: MetricsRegistry())
        let old = poller(fake, database, producer, metrics)
        #expect(try await old.pollOnce().published == 1)
        // A new leader takes over and publishes the next change; the old one still believes it is at seq 1.
        try fake.feed.seek(id, delivery: 6)
        #expect(try await poller(fake, database, producer, metrics).pollOnce().published == 1)
        try fake.feed.seek(id, delivery: 7)
        let refused = try await old.pollOnce()
        #expect(refused.published == 0 && refused.rejected == 1)
        #expect(metrics.errors("feed_cursor_moved") == 1)
        #expect(try await old.pollOnce().published == 1, "it read the cursor again and went on")
        let snapshots = try await PollerTestSupport.snapshots(matchId: String(id), expected: 3)
        #expect(snapshots.map(\.seq) == [1, 2, 3] && snapshots.map(\.basis) == [0, 1, 2])
        #expect(snapshots.map { $0.balls?.count ?? -1 } == [5, 1, 1])
        try await producer.shutdown()
        await PollerTestSupport.dropSchema(schema, database)
    }

    @Test func loopSurvivesServerErrorRateLimitGarbageAndMissingFields() async throws {
        let (database, schema) = try await PollerTestSupport.database()
        let producer = try PollerTestSupport.producer()
        let offset = PollerTestSupport.uniqueOffset()
        let id = 1144504 + offset
        let fake = try FakeSportMonks(ids: [1144504], configuration: .init(idOffset: offset))
        defer { fake.stop() }
        try fake.feed.start(id)
        try fake.feed.seek(id, delivery: 25)
        try fake.feed.pause(id)
        fake.feed.faults.add(FeedFault(kind: .serverError))
        fake.feed.faults.add(FeedFault(kind: .rateLimited, retryAfter: 7))
        fake.feed.faults.add(FeedFault(kind: .garbage))
        fake.feed.faults.add(FeedFault(kind: .missingFields))
        let metrics = PollerMetrics(registry: MetricsRegistry())
        let sleeper = RecordingSleeper(limit: 6)
        let loop = PollLoop(poller: poller(fake, database, producer, metrics), interval: .seconds(1),
                            backoff: Backoff(initial: .milliseconds(100), maximum: .seconds(10)), sleeper: sleeper,
                            random: { 0.5 }, metrics: metrics, logger: PollerTestSupport.logger)
        await loop.run()

        // 500 → backoff 100 ms · 0.75; 429 → exactly Retry-After; garbage → 400 ms · 0.75 (third failure);
        // missing fields → the fixture is rejected, the poll itself succeeds; then two good polls.
        #expect(sleeper.waits == [.milliseconds(75), .seconds(7), .milliseconds(300), .seconds(1), .seconds(1), .seconds(1)])
        #expect(metrics.errors("http_5xx") == 1)
        #expect(metrics.errors("rate_limited") == 1)
        #expect(metrics.errors("malformed") == 1)
        #expect(metrics.errors("invalid_fixture") == 1)
        #expect(metrics.polls.count == 3)
        #expect(metrics.published.count == 1, "the loop went on and published the fixture once")
        #expect(metrics.registry.render().contains(#"poller_errors_total{kind="rate_limited"} 1"#))
        let snapshots = try await PollerTestSupport.snapshots(matchId: String(id), expected: 1)
        #expect(snapshots.count == 1)
        try await producer.shutdown()
        await PollerTestSupport.dropSchema(schema, database)
    }

    @Test func backoffGrowsWithJitterAndIsCapped() {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(8))
        #expect(backoff.delay(afterFailures: 1, random: 0) == .milliseconds(500))
        #expect(backoff.delay(afterFailures: 2, random: 0.5) == .milliseconds(1500))
        #expect(backoff.delay(afterFailures: 4, random: 0.999) <= .seconds(8))
        #expect(backoff.delay(afterFailures: 40, random: 0) == .seconds(4))
    }

    @Test func scheduleSyncFillsTheWindowWithCards() async throws {
        let (database, schema) = try await PollerTestSupport.database()
        let offset = PollerTestSupport.uniqueOffset()
        let ids = [1144504, 1304076, 1216517]
        let fake = try FakeSportMonks(ids: ids, configuration: .init(upcomingDays: 1, idOffset: offset, perPage: 2))
        defer { fake.stop() }
        let metrics = PollerMetrics(registry: MetricsRegistry())
        func sync(days: Int) -> ScheduleSync {
            ScheduleSync(client: fake.client, store: MatchStore(database: database), include: "localteam,visitorteam,league,venue,runs",
                         windowDays: days, clock: fake.clock, metrics: metrics, logger: PollerTestSupport.logger)
        }
        #expect(try await sync(days: 0).syncOnce() == 0, "nothing scheduled before tomorrow")
        #expect(try await sync(days: 7).syncOnce() == 3, "three pages of two and one")
        #expect(try await sync(days: 7).syncOnce() == 0, "unchanged rows are left alone")
        let rows = try await database.query("SELECT match_id, is_live, status, card, starts_at FROM matches ORDER BY starts_at")
        #expect(rows.count == 3)
        for row in rows {
            let card = try row.decode("card", as: PostgresJSON.self).decode(MatchCard.self)
            #expect(try row.decode("is_live", as: Bool.self) == false)
            #expect(try row.decode("status", as: String.self) == "NS")
            #expect(card.phase == .upcoming && card.statusText.hasPrefix("Starts ") && card.title.contains(" vs "))
            #expect(Int64(try row.decode("starts_at", as: Date.self).timeIntervalSince1970) == card.startsAt)
        }
        await PollerTestSupport.dropSchema(schema, database)
    }
}
