import SharedTestSupport
import Contracts
import CricsheetReplay
import Cricket
import Foundation
import Testing
@testable import Detection

/// Snapshots carry only what changed (issue 15): every message stays under the bound however long the match,
/// and the detector rebuilds exactly the fixture the feed served, so detection is unchanged.
@Suite struct SnapshotChainTests {
    static func fixture(balls count: Int) -> SportMonksFixture {
        FixtureFactory.fixture(FixtureFactory.balls((0..<count).map { _ in
            FixtureFactory.Spec(bowler: 20, striker: 10, nonStriker: 11, outcome: .runs(1))
        }))
    }

    /// Where two fixtures differ, briefly (a whole fixture is too long to print).
    static func difference(_ a: SportMonksFixture?, _ b: SportMonksFixture) -> String? {
        guard let a else { return "nothing assembled" }
        guard a != b else { return nil }
        var rest = a, other = b
        rest.balls = nil
        other.balls = nil
        if rest != other {
            let fields = zip(Mirror(reflecting: rest).children, Mirror(reflecting: other).children)
                .filter { String(describing: $0.value) != String(describing: $1.value) }.map { $0.0.label ?? "?" }
            return "the fixture without balls differs in \(fields)"
        }
        let left = a.balls ?? [], right = b.balls ?? []
        if left.count != right.count { return "\(left.count) balls, expected \(right.count)" }
        let index = left.indices.first { left[$0] != right[$0] } ?? 0
        return "ball \(right[index].id) differs: \(left[index].score) vs \(right[index].score)"
    }

    /// The fixture as a consumer reads it back: balls in id order, and a JSON `null` in the untyped fields
    /// read as absent (the builder writes `.null`, every decoder gives nil: the same JSON).
    static func sorted(_ fixture: SportMonksFixture) -> SportMonksFixture {
        var fixture = fixture
        fixture.balls = fixture.balls?.sorted { $0.id < $1.id }
        for path in [\SportMonksFixture.lastPeriod, \.drawNoresult, \.rpcOvers, \.rpcTarget] where fixture[keyPath: path] == .null {
            fixture[keyPath: path] = nil
        }
        return fixture
    }

    /// A T20 and an ODI poll by poll; the Tests every 7th delivery (7 new balls a poll, still exact; every
    /// delivery of a Test is replayed through the real processes by the pipeline tests).
    @Test("every snapshot is rebuilt exactly from bounded messages", arguments: [(1415755, 1), (1144530, 2), (1152848, 7), (1426557, 7)])
    func rebuildsEveryFixture(matchId: Int, every: Int) throws {
        let match = try DataDirectory.match(matchId)
        let builder = SportMonksFixtureBuilder(match: match)
        var transport = ChainTransport(matchId: "\(matchId)")
        let timeline = match.replayTimeline()
        for (index, position) in timeline.enumerated() where index % every == 0 || index == timeline.count - 1 {
            let fixture = builder.fixture(at: position)
            let rebuilt = try transport.send(fixture, polledAt: 1_800_000_000_000 + Int64(index) * 40_000)
            let difference = Self.difference(rebuilt, Self.sorted(fixture))
            #expect(difference == nil, "\(matchId) at \(index)")
            if difference != nil { return }
        }
        #expect(transport.largestPage <= FixtureSnapshot.maximumBytes)
        #expect(transport.resyncs == 0)
    }

    @Test("a Test joined at the end arrives in bounded pages; a lost page is rebuilt from the history")
    func joinLateAndLoseAPage() throws {
        let match = try DataDirectory.match(1152848)
        let builder = SportMonksFixtureBuilder(match: match)
        let timeline = match.replayTimeline()
        let last = builder.fixture(at: timeline[timeline.count - 1])
        #expect((last.balls?.count ?? 0) == 1705)

        var transport = ChainTransport(matchId: "1152848")
        #expect(Self.difference(try transport.send(last, polledAt: 1), Self.sorted(last)) == nil)
        #expect(transport.pages > 4, "1,705 deliveries cannot fit in a few 256 KiB messages")
        #expect(transport.largestPage <= FixtureSnapshot.maximumBytes)

        // Join mid-match; the first page of the next poll is lost: the last page asks for the history.
        var late = ChainTransport(matchId: "1152848")
        late.maximumBytes = 64 * 1024
        _ = try late.send(builder.fixture(at: timeline[900]), polledAt: 1)
        let next = builder.fixture(at: timeline[1400])
        #expect(Self.difference(try late.send(next, polledAt: 2, drop: [0]), Self.sorted(next)) == nil)
        #expect(late.resyncs == 1)
        #expect(late.largestPage <= 64 * 1024)
    }

    @Test("a corrected ball and a removed ball travel as changes; the chain follows them")
    func correctionsAndRemovals() throws {
        let match = try DataDirectory.match(1415755)
        let builder = SportMonksFixtureBuilder(match: match)
        let timeline = match.replayTimeline()
        var transport = ChainTransport(matchId: "1415755")
        var fixture = builder.fixture(at: timeline[100])
        _ = try transport.send(fixture, polledAt: 1)
        var balls = try #require(fixture.balls)
        balls[balls.count - 2].score.runs += 1   // a correction of an older delivery
        balls.removeLast()                       // a delivery withdrawn
        fixture.balls = balls
        let pagesBefore = transport.pages
        #expect(Self.difference(try transport.send(fixture, polledAt: 2), Self.sorted(fixture)) == nil)
        #expect(transport.pages == pagesBefore + 1)
    }

    @Test("a page counting balls the chain does not have asks for the history; a short history is an error")
    func countMismatch() throws {
        let chains = BallChains()
        let fixture = Self.fixture(balls: 3)
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(fixture))
        var plan = try FixtureSnapshotPager.plan(matchId: "9", polledAt: 1, fixture: json, after: FixtureFeedCursor())
        var page = try SnapshotDecoding.decode(plan.encoded[0])
        page.ballCount = 4
        guard case .needsHistory = chains.apply(page) else { Issue.record("a wrong count must not assemble"); return }
        #expect(throws: BallChainError.incompleteHistory(matchId: "9", seq: 1, expected: 4, found: 3)) {
            _ = try chains.restore(page, history: fixture.balls ?? [])
        }
        plan = try FixtureSnapshotPager.plan(matchId: "9", polledAt: 1, fixture: json, after: FixtureFeedCursor())
        page = try SnapshotDecoding.decode(plan.encoded[0])
        guard case .assembled(let rebuilt) = chains.apply(page) else { Issue.record("a full list assembles"); return }
        #expect(rebuilt.balls?.count == 3)
    }

    @Test("one decoder accepts a snapshot: what the fast decoder refuses is rejected with a reason, never decoded another way")
    func refusedByTheFastDecoder() throws {
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(Self.fixture(balls: 2)))
        let plan = try FixtureSnapshotPager.plan(matchId: "9", polledAt: 1, fixture: json, after: FixtureFeedCursor())
        let good = String(decoding: plan.encoded[0], as: UTF8.self)
        _ = try SnapshotDecoding.decode(Array(good.utf8))
        // A duplicate key: Foundation's decoder takes it, the fast one refuses it.
        let duplicated = good.replacingOccurrences(of: #""matchId":"9""#, with: #""matchId":"9","matchId":"9""#)
        #expect(duplicated != good)
        do {
            _ = try SnapshotDecoding.decode(Array(duplicated.utf8))
            Issue.record("a duplicate key was accepted")
        } catch {
            #expect(!error.description.isEmpty && ["invalid_fixture", "malformed_json", "invalid_field"].contains(error.kind),
                    "\(error.kind): \(error)")
        }
        // A wrong type names its field.
        let mistyped = good.replacingOccurrences(of: #""polledAt":1"#, with: #""polledAt":"one""#)
        #expect(throws: SnapshotDecodeError.self) { _ = try SnapshotDecoding.decode(Array(mistyped.utf8)) }
    }

    @Test("a fixture too large without its balls is refused with its size, never produced")
    func refusesOversizedFixture() throws {
        let fixture = Self.fixture(balls: 1)
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(fixture))
        #expect {
            _ = try FixtureSnapshotPager.plan(matchId: "9", polledAt: 1, fixture: json, after: FixtureFeedCursor(),
                                              maximumBytes: 200)
        } throws: { error in
            guard case FixtureSnapshotPagerError.fixtureTooLarge(matchId: "9", let bytes, limit: 200) = error else { return false }
            return bytes > 200
        }
        let huge = FixtureSnapshot(matchId: "9", polledAt: 1, seq: 1, basis: 0, complete: true,
                                   fixture: .object(["note": .string(String(repeating: "x", count: FixtureSnapshot.maximumBytes))]),
                                   balls: nil, ballCount: 0)
        #expect(throws: MessageEncodeError.self) { _ = try MessageCodec.encode(huge) }
    }

    @Test("a delivery served twice travels once (the last copy); pages stay under a tight bound")
    func duplicatesAndTightPages() throws {
        let match = try DataDirectory.match(1415755)
        let fixture = SportMonksFixtureBuilder(match: match).fixture(at: match.replayTimeline()[200])
        var json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(fixture))
        guard case .object(var members) = json, case .array(let balls)? = members["balls"] else { Issue.record("no balls"); return }
        members["balls"] = .array(balls + [balls[3]])
        json = .object(members)
        let bound = 40 * 1024
        let plan = try FixtureSnapshotPager.plan(matchId: "1", polledAt: 1, fixture: json, after: FixtureFeedCursor(),
                                                 maximumBytes: bound)
        #expect(plan.changed.count == balls.count && plan.cursor.ballHashes.count == balls.count)
        #expect(plan.pages.last?.ballCount == balls.count)
        #expect(plan.pages.count > 3 && plan.encoded.allSatisfy { $0.count <= bound })
        #expect(plan.pages.map(\.seq) == Array(1...Int64(plan.pages.count)))
    }

    @Test("a ball's fingerprint ignores key order and sees every change, even two that could cancel")
    func fingerprints() {
        let a: JSONValue = .object(["x": .int(0), "y": .int(1), "z": .string("s")])
        let reordered: JSONValue = .object(["z": .string("s"), "y": .int(1), "x": .int(0)])
        let swapped: JSONValue = .object(["x": .int(1), "y": .int(0), "z": .string("s")])
        #expect(a.fingerprint == reordered.fingerprint)
        #expect(a.fingerprint != swapped.fingerprint)
        #expect(JSONValue.array([.int(1), .int(2)]).fingerprint != JSONValue.array([.int(2), .int(1)]).fingerprint)
        #expect(JSONValue.null.fingerprint != JSONValue.bool(false).fingerprint)
    }
}
