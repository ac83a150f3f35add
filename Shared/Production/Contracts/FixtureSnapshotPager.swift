import Foundation

/// What the poller has published of one match: the last `seq` and the fingerprint of every delivery as of it.
public struct FixtureFeedCursor: Sendable, Equatable {
    /// The `seq` of the last snapshot published (0: none yet).
    public var seq: Int64
    /// Ball id → the ball's `JSONValue.fingerprint`, as of `seq`.
    public var ballHashes: [Int: UInt64]

    public init(seq: Int64 = 0, ballHashes: [Int: UInt64] = [:]) {
        self.seq = seq
        self.ballHashes = ballHashes
    }
}

/// Why a fixture could not be cut into bounded snapshots. Carries the match and the sizes, never the fixture.
public enum FixtureSnapshotPagerError: Error, Equatable, CustomStringConvertible {
    /// The fixture without its balls is already larger than a snapshot may be.
    case fixtureTooLarge(matchId: String, bytes: Int, limit: Int)
    /// One delivery does not fit in a snapshot beside the rest of the fixture.
    case ballTooLarge(matchId: String, ballId: Int, bytes: Int, limit: Int)
    /// A delivery without an integer `id`.
    case ballWithoutId(matchId: String, index: Int)
    /// The fixture could not be encoded.
    case encoding(matchId: String, MessageEncodeError)

    public var description: String {
        switch self {
        case .fixtureTooLarge(let matchId, let bytes, let limit):
            "match \(matchId): the fixture without its balls is \(bytes) bytes, above the \(limit)-byte snapshot bound"
        case .ballTooLarge(let matchId, let ballId, let bytes, let limit):
            "match \(matchId): ball \(ballId) (\(bytes) bytes) does not fit in a \(limit)-byte snapshot"
        case .ballWithoutId(let matchId, let index): "match \(matchId): ball [\(index)] has no integer id"
        case .encoding(let matchId, let error): "match \(matchId): \(error)"
        }
    }
}

/// Cuts a fixture into the bounded `FixtureSnapshot`s that carry what changed since a cursor: the one place
/// `sportmonks.fixtures` messages are made (the poller publishes exactly `pages`, in order).
public enum FixtureSnapshotPager {
    /// A delivery as published: its id, its JSON and the fingerprint of that JSON.
    public struct Ball: Sendable, Equatable {
        public var id: Int
        public var json: JSONValue
        public var hash: UInt64
        /// The `seq` of the page that carries it.
        public var seq: Int64
    }

    /// The snapshots of one poll and what they change.
    public struct Plan: Sendable {
        /// The snapshots to publish, in order (at least one; the last is `complete`).
        public var pages: [FixtureSnapshot]
        /// Their encodings (each at most the bound), index for index.
        public var encoded: [[UInt8]]
        /// Deliveries new or changed, with the page that carries each.
        public var changed: [Ball]
        /// Ids of deliveries gone (carried by the first page).
        public var removed: [Int]
        /// The cursor once every page is published.
        public var cursor: FixtureFeedCursor
    }

    /// Plans the snapshots that take a consumer from `cursor` to `fixture`.
    /// - Parameter maximumBytes: the bound on each encoded snapshot (`FixtureSnapshot.maximumBytes`).
    public static func plan(matchId: String, polledAt: Int64, fixture: JSONValue, after cursor: FixtureFeedCursor,
                            maximumBytes: Int = FixtureSnapshot.maximumBytes) throws(FixtureSnapshotPagerError) -> Plan {
        let (rest, served) = FixtureSnapshot.split(fixture)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var next = cursor
        var fresh: [(id: Int, json: JSONValue, hash: UInt64, bytes: Int, isNew: Bool)] = []
        var removed: [Int] = []
        if let served {
            // One version per id, the last one served (as a consumer keeps the last of duplicates).
            var latest: [Int: Int] = [:]
            for (index, ball) in served.enumerated() {
                guard case .int(let id)? = ball["id"] else { throw .ballWithoutId(matchId: matchId, index: index) }
                latest[id] = index
            }
            var hashes: [Int: UInt64] = [:]
            hashes.reserveCapacity(latest.count)
            for (index, ball) in served.enumerated() {
                guard case .int(let id)? = ball["id"], latest[id] == index else { continue }
                let hash = ball.fingerprint
                hashes[id] = hash
                guard cursor.ballHashes[id] != hash else { continue }
                let bytes: Data
                do { bytes = try encoder.encode(ball) } catch {
                    throw .encoding(matchId: matchId, .unencodable(topic: FixtureSnapshot.topic.name, reason: "\(error)"))
                }
                fresh.append((id, ball, hash, bytes.count, cursor.ballHashes[id] == nil))
            }
            removed = cursor.ballHashes.keys.filter { hashes[$0] == nil }.sorted()
            next.ballHashes = hashes
        }
        // The count once a page is applied: what the cursor kept, plus the new deliveries of the pages so far.
        var ballCount = cursor.ballHashes.count - removed.count

        func page(_ balls: [JSONValue]?, removed: [Int], seq: Int64, complete: Bool) -> FixtureSnapshot {
            FixtureSnapshot(matchId: matchId, polledAt: polledAt, seq: seq, basis: seq - 1, complete: complete,
                            fixture: rest, balls: balls, removedBallIds: removed, ballCount: served == nil ? cursor.ballHashes.count : ballCount)
        }
        func encode(_ snapshot: FixtureSnapshot) throws(FixtureSnapshotPagerError) -> [UInt8] {
            do { return try MessageCodec.encode(snapshot) } catch { throw .encoding(matchId: matchId, error) }
        }

        // The size of an empty page with the largest header any page of this plan can have (the last seq, the
        // final count), then balls by their exact encoded size plus a comma each.
        let empty: [UInt8]
        var largestHeader = page(served == nil ? nil : [], removed: removed, seq: cursor.seq + Int64(fresh.count) + 1,
                                 complete: false)
        largestHeader.ballCount = max(largestHeader.ballCount, next.ballHashes.count)
        do { empty = try MessageCodec.encode(largestHeader) }
        catch { throw .fixtureTooLarge(matchId: matchId, bytes: sizeOf(error), limit: maximumBytes) }
        guard empty.count <= maximumBytes else {
            throw .fixtureTooLarge(matchId: matchId, bytes: empty.count, limit: maximumBytes)
        }
        var groups: [[Int]] = [[]]
        var used = empty.count
        for (index, ball) in fresh.enumerated() {
            if used + ball.bytes + 1 > maximumBytes, !groups[groups.count - 1].isEmpty {
                groups.append([])
                used = empty.count - removedBytes(removed)
            }
            guard used + ball.bytes + 1 <= maximumBytes else {
                throw .ballTooLarge(matchId: matchId, ballId: ball.id, bytes: ball.bytes, limit: maximumBytes)
            }
            groups[groups.count - 1].append(index)
            used += ball.bytes + 1
        }

        var plan = Plan(pages: [], encoded: [], changed: [], removed: removed, cursor: next)
        for (number, group) in groups.enumerated() {
            let seq = cursor.seq + Int64(number) + 1
            ballCount += group.filter { fresh[$0].isNew }.count
            let snapshot = page(served == nil ? nil : group.map { fresh[$0].json }, removed: number == 0 ? removed : [],
                                seq: seq, complete: number == groups.count - 1)
            let bytes = try encode(snapshot)
            plan.pages.append(snapshot)
            plan.encoded.append(bytes)
            plan.changed += group.map { Ball(id: fresh[$0].id, json: fresh[$0].json, hash: fresh[$0].hash, seq: seq) }
        }
        plan.cursor.seq = cursor.seq + Int64(groups.count)
        return plan
    }

    /// The bytes the removed ids take in the first page (later pages do without them): the digits and the
    /// commas between them.
    private static func removedBytes(_ removed: [Int]) -> Int {
        removed.isEmpty ? 0 : removed.reduce(0) { $0 + String($1).utf8.count } + removed.count - 1
    }

    private static func sizeOf(_ error: MessageEncodeError) -> Int {
        if case .tooLarge(_, let bytes, _) = error { return bytes }
        return 0
    }
}
