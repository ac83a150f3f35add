import Contracts
import Cricket
import FeedHistory
import Foundation
import Runtime
import Matches

/// One livescores poll at a time: publishes the `FixtureSnapshot`s of every fixture whose canonical
/// hash differs from the last published one (kept in memory and in `matches.feed_hash`, so a restart
/// or a new leader does not republish unchanged fixtures), updates `matches`, and fetches
/// `/fixtures/{id}` once for a fixture that dropped out of /livescores (its final state).
///
/// The snapshots carry only the deliveries new or changed since the last publication (`FixtureSnapshotPager`,
/// from the match's `FixtureFeedCursor`). A plan is recorded in `feed_cursors`/`feed_balls` before it is
/// published, and from then on it is part of the chain (a page lost on the way is rebuilt by the detector from
/// the history); the cursor is read back from there after a restart.
actor FeedPoller {
    /// What one poll did.
    struct Report: Sendable, Equatable {
        var fixtures = 0
        var published = 0
        var unchanged = 0
        var rejected = 0
        var finalFetches = 0
    }

    let client: SportMonksClient
    let store: MatchStore
    let history: FeedBallStore
    let publisher: any SnapshotPublisher
    let include: String
    let clock: any WallClock
    let metrics: PollerMetrics
    let logger: Logger
    /// What was last published of a fixture: its hash and, once needed, its recorded cursor.
    private struct Memory {
        var hash: String?
        var cursor: FixtureFeedCursor?
    }

    /// Per fixture id, once looked up.
    private var memory: [Int: Memory] = [:]
    /// Fixture ids listed by the previous poll; loaded from `matches.is_live` on the first poll.
    private var listed: Set<Int>?

    init(client: SportMonksClient, store: MatchStore, history: FeedBallStore, publisher: any SnapshotPublisher,
         include: String, clock: any WallClock, metrics: PollerMetrics, logger: Logger) {
        self.client = client
        self.store = store
        self.history = history
        self.publisher = publisher
        self.include = include
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    /// Polls /livescores once.
    /// - Throws: `FeedRequestError` when the reply is unusable, or a Kafka/PostgreSQL error.
    func pollOnce() async throws -> Report {
        if listed == nil {
            listed = Set(try await store.liveMatchIds().compactMap { Int($0) })
        }
        let body = try await client.livescores(include: include)
        let items = try Self.dataArray(body, path: "/livescores")
        var report = Report()
        var seen: Set<Int> = []
        for item in items {
            report.fixtures += 1
            switch try await process(item) {
            case .published(let id): report.published += 1; seen.insert(id)
            case .unchanged(let id): report.unchanged += 1; seen.insert(id)
            case .rejected(let id):
                report.rejected += 1
                // Still listed, just unreadable this time: not a drop-out.
                if let id { seen.insert(id) }
            }
        }
        var stillListed = seen
        for id in (listed ?? []).subtracting(seen).sorted() {
            report.finalFetches += 1
            do {
                let final = try await client.fixture(id: id, include: include)
                guard case .object(let top) = try Self.json(final, path: "/fixtures/\(id)"), let data = top["data"] else {
                    throw FeedRequestError.malformed(path: "/fixtures/\(id)", reason: "no data object", excerpt: "")
                }
                if case .published = try await process(data) { report.published += 1 }
            } catch let error as FeedRequestError {
                if case .status(_, 404, _, _) = error {
                    try await store.markNotLive(String(id), at: clock.now())
                } else {
                    metrics.error(error.kind)
                    logger.warning("final fetch failed; retrying next poll", ["match_id": String(id), "error": error.description])
                    stillListed.insert(id)
                }
            }
        }
        listed = stillListed
        metrics.polls.increment()
        metrics.liveFixtures.set(Double(seen.count))
        return report
    }

    enum Outcome { case published(Int), unchanged(Int), rejected(Int?) }

    /// Publishes `item` if it changed since the last publication.
    private func process(_ item: JSONValue) async throws -> Outcome {
        let fingerprint = FixtureFingerprint(item)
        let fixture: SportMonksFixture
        do {
            fixture = try FixtureFingerprint.fixtureWithoutBalls(item)
        } catch {
            metrics.error("invalid_fixture")
            let id = item["id"].flatMap { if case .int(let id) = $0 { id } else { nil } }
            logger.warning("fixture rejected", ["match_id": id.map(String.init) ?? "?", "error": String(describing: error)])
            return .rejected(id)
        }
        let id = fixture.id
        let matchId = String(id)
        if memory[id] == nil {
            memory[id] = Memory(hash: try await store.publishedHash(matchId))
        }
        guard let known = memory[id], known.hash != fingerprint.hash else {
            metrics.unchanged.increment()
            return .unchanged(id)
        }
        let cursor: FixtureFeedCursor
        if let remembered = known.cursor {
            cursor = remembered
        } else {
            let seq = try await history.cursor(matchId: matchId)
            cursor = FixtureFeedCursor(seq: seq, ballHashes: try await history.hashes(matchId: matchId, asOf: seq))
        }
        let now = clock.now()
        let plan: FixtureSnapshotPager.Plan
        do {
            plan = try FixtureSnapshotPager.plan(matchId: matchId, polledAt: Int64(now.timeIntervalSince1970 * 1000),
                                                 fixture: item, after: cursor)
        } catch {
            metrics.error("snapshot_too_large")
            logger.error("fixture not publishable", ["match_id": matchId, "error": error.description])
            return .rejected(id)
        }
        do {
            try await history.record(matchId: matchId, after: cursor.seq, plan)
        } catch let error as FeedHistoryError {
            // Another poller moved the chain (a leader change) or the sweep deleted it: read it again next poll.
            memory[id] = nil
            metrics.error("feed_cursor_moved")
            logger.warning("feed cursor moved; re-reading it", ["match_id": matchId, "error": error.description])
            return .rejected(id)
        }
        // Recorded: the plan is in the chain even if publishing fails below (the next plan follows it).
        memory[id]?.cursor = plan.cursor
        // The status first (close of play, in particular), so that whoever acts on this snapshot's events reads
        // the status they came from; the hash only once the snapshot is published.
        let row = MatchStore.Row(fixture)
        try await store.upsertSchedule(row, at: now)
        try await publisher.publish(matchId: matchId, pages: plan.encoded)
        try await store.recordPublished(fingerprint.hash, matchId: matchId, at: now)
        memory[id]?.hash = fingerprint.hash
        metrics.published.increment()
        metrics.snapshotPages.increment(by: plan.pages.count)
        metrics.snapshotBytes.set(max(metrics.snapshotBytes.current, Double(plan.encoded.map(\.count).max() ?? 0)))
        logger.debug("fixture published", ["match_id": matchId, "status": fixture.status.rawValue, "hash": fingerprint.hash,
                                           "seq": String(plan.cursor.seq), "pages": String(plan.pages.count),
                                           "balls": String(plan.changed.count)])
        return .published(id)
    }

    static func json(_ body: Data, path: String) throws(FeedRequestError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: body)
        } catch {
            throw .malformed(path: path, reason: "not JSON", excerpt: String(decoding: body.prefix(120), as: UTF8.self))
        }
    }

    /// The `data` array of a list reply.
    static func dataArray(_ body: Data, path: String) throws(FeedRequestError) -> [JSONValue] {
        guard case .object(let top) = try json(body, path: path), case .array(let items)? = top["data"] else {
            throw .malformed(path: path, reason: "no data array", excerpt: String(decoding: body.prefix(120), as: UTF8.self))
        }
        return items
    }
}
