import Contracts
import Cricket
import CricsheetReplay
import Foundation
@testable import Detection

/// The poller → Kafka → detector transport of fixtures, in process: each fixture is cut into pages from the
/// cursor (`FixtureSnapshotPager`), every page is encoded and decoded like a `sportmonks.fixtures` message, and
/// `BallChains` rebuilds the whole fixture. An in-memory ball history (what `feed_balls` holds) answers
/// `needsHistory`, so messages can be dropped to exercise the resync path.
struct ChainTransport {
    var cursor = FixtureFeedCursor()
    let chains = BallChains()
    let matchId: String
    var maximumBytes = FixtureSnapshot.maximumBytes
    /// Every version published: (ball id, seq, ball or nil when removed).
    private(set) var history: [(id: Int, seq: Int64, ball: SportMonksBall?)] = []
    /// The largest encoded page so far.
    private(set) var largestPage = 0
    private(set) var pages = 0
    private(set) var resyncs = 0
    let renderer = FixtureJSONRenderer()

    init(matchId: String) { self.matchId = matchId }

    /// Sends one poll's fixture; returns what the detector rebuilt from the last page.
    /// - Parameter drop: pages (0-based) lost on the way (their seq is never seen by the consumer).
    mutating func send(_ fixture: SportMonksFixture, polledAt: Int64, drop: Set<Int> = []) throws -> SportMonksFixture? {
        let plan = try FixtureSnapshotPager.plan(matchId: matchId, polledAt: polledAt, fixture: try renderer.json(fixture),
                                                 after: cursor, maximumBytes: maximumBytes)
        for ball in plan.changed {
            history.append((ball.id, ball.seq, try JSONDecoder().decode(SportMonksBall.self, from: JSONEncoder().encode(ball.json))))
        }
        for id in plan.removed { history.append((id, cursor.seq + 1, nil)) }
        cursor = plan.cursor
        var assembled: SportMonksFixture?
        for (index, bytes) in plan.encoded.enumerated() {
            largestPage = max(largestPage, bytes.count)
            pages += 1
            guard !drop.contains(index) else { continue }
            let decoded = try SnapshotDecoding.decode(bytes)
            var step = chains.apply(decoded)
            if case .needsHistory = step {
                resyncs += 1
                step = try chains.restore(decoded, history: balls(asOf: decoded.seq))
            }
            if case .assembled(let fixture) = step { assembled = fixture }
        }
        return assembled
    }

    /// The deliveries as of `seq` (the latest version at or below it), in id order.
    func balls(asOf seq: Int64) -> [SportMonksBall] {
        var latest: [Int: (seq: Int64, ball: SportMonksBall?)] = [:]
        for version in history where version.seq <= seq {
            if let known = latest[version.id], known.seq > version.seq { continue }
            latest[version.id] = (version.seq, version.ball)
        }
        return latest.compactMap(\.value.ball).sorted { $0.id < $1.id }
    }
}
