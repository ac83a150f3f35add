import Contracts
import Cricket
import FastJSON
import Foundation

/// Why a `sportmonks.fixtures` message was rejected.
public enum SnapshotDecodeError: Error, Equatable, CustomStringConvertible {
    /// The message itself is bad (not JSON, wrong schema, missing field, too large): MessageCodec's verdict.
    case message(MessageDecodeError)
    /// The message is a valid `FixtureSnapshot` but its fixture is not a readable SportMonks fixture.
    case fixture(matchId: String, reason: String)

    public var description: String {
        switch self {
        case .message(let error): error.description
        case .fixture(let matchId, let reason): "fixture of match \(matchId) unreadable: \(reason)"
        }
    }

    /// A metric label for the kind of failure.
    public var kind: String {
        switch self {
        case .message(let error): error.kind
        case .fixture: "invalid_fixture"
        }
    }
}

/// Reads `sportmonks.fixtures` messages into typed fixtures.
///
/// One decoder accepts a message: `FastJSONDecoder`, once, straight into a `SportMonksFixture` and its changed
/// balls (a snapshot is at most 256 KiB; Foundation's JSONDecoder spends ~3 ms on 200 KB, FastJSON a fraction of
/// that). A message it refuses is rejected; the fallback only says why: `MessageCodec.decode`'s verdict on the
/// envelope (not JSON, wrong schema, missing field, too large), else the fixture or ball field Foundation's
/// decoder names, else the fast decoder's own reason (it is stricter than Foundation about, e.g., duplicate keys).
public enum SnapshotDecoding {
    /// The snapshot's header fields, its typed fixture (without balls) and its typed ball changes.
    public struct Decoded: Sendable {
        public var matchId: String
        public var polledAt: Int64
        public var seq: Int64
        public var basis: Int64
        public var complete: Bool
        /// The fixture as served, `balls` nil (they travel in `balls`).
        public var fixture: SportMonksFixture
        /// Deliveries new or changed since `basis`; nil when the fixture had no balls member.
        public var balls: [SportMonksBall]?
        public var removedBallIds: [Int]
        public var ballCount: Int
    }

    struct Typed: Decodable, Sendable {
        var schema: Int
        var matchId: String
        var polledAt: Int64
        var seq: Int64
        var basis: Int64
        var complete: Bool
        var fixture: SportMonksFixture
        var balls: [SportMonksBall]?
        var removedBallIds: [Int]
        var ballCount: Int

        var decoded: Decoded {
            var fixture = fixture
            fixture.balls = nil
            return Decoded(matchId: matchId, polledAt: polledAt, seq: seq, basis: basis, complete: complete,
                           fixture: fixture, balls: balls, removedBallIds: removedBallIds, ballCount: ballCount)
        }
    }

    /// Decodes one message's bytes.
    /// - Parameter reusing: when given, rows whose JSON is unchanged since the last message decoded with the
    ///   same cache are taken from it instead of decoded again (use one cache per match: `SnapshotReuseCaches`).
    ///   The result is the same either way.
    public static func decode(_ bytes: [UInt8], reusing cache: FastJSONReuseCache? = nil) throws(SnapshotDecodeError) -> Decoded {
        var fastError: String = "larger than \(FixtureSnapshot.maximumBytes) bytes"
        if bytes.count <= FixtureSnapshot.maximumBytes {
            do {
                let typed = if let cache {
                    try FastJSONDecoder().decode(Typed.self, from: bytes, reusing: cache)
                } else {
                    try FastJSONDecoder().decode(Typed.self, from: bytes)
                }
                if typed.schema == FixtureSnapshot.currentSchema { return typed.decoded }
                fastError = "schema \(typed.schema)"
            } catch {
                fastError = String(describing: error)
            }
        }
        throw rejection(of: bytes, fastError: fastError)
    }

    /// Why the fast decoder refused `bytes`: the envelope's error, else the bad fixture or ball field, else its own.
    static func rejection(of bytes: [UInt8], fastError: String) -> SnapshotDecodeError {
        let snapshot: FixtureSnapshot
        do { snapshot = try MessageCodec.decode(FixtureSnapshot.self, from: bytes) } catch { return .message(error) }
        do {
            _ = try typed(SportMonksFixture.self, snapshot.fixture, matchId: snapshot.matchId, at: "fixture")
            if let balls = snapshot.balls {
                _ = try typed([SportMonksBall].self, .array(balls), matchId: snapshot.matchId, at: "balls")
            }
        } catch {
            return error
        }
        return .fixture(matchId: snapshot.matchId, reason: "refused by the fast decoder: \(fastError)")
    }

    /// Deliveries read back from the ball history (one JSON object each).
    public static func balls(history rows: [String], matchId: String) throws(SnapshotDecodeError) -> [SportMonksBall] {
        var balls: [SportMonksBall] = []
        balls.reserveCapacity(rows.count)
        for (index, row) in rows.enumerated() {
            do { balls.append(try FastJSONDecoder().decode(SportMonksBall.self, from: Array(row.utf8))) } catch {
                throw .fixture(matchId: matchId, reason: "ball history row \(index) unreadable: \(error)")
            }
        }
        return balls
    }

    /// `value` read as `type`; the error names the path of the bad field under `root`.
    static func typed<T: Decodable>(_ type: T.Type, _ value: JSONValue, matchId: String, at root: String)
        throws(SnapshotDecodeError) -> T
    {
        do {
            let data = try JSONEncoder().encode(value)
            return try JSONDecoder().decode(T.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw .fixture(matchId: matchId, reason: "missing \(root)\(path(context.codingPath, key))")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .fixture(matchId: matchId, reason: "wrong type at \(root)\(path(context.codingPath, nil))")
        } catch let DecodingError.valueNotFound(_, context) {
            throw .fixture(matchId: matchId, reason: "null at \(root)\(path(context.codingPath, nil))")
        } catch {
            throw .fixture(matchId: matchId, reason: String(describing: error))
        }
    }

    static func path(_ keys: [any CodingKey], _ last: (any CodingKey)?) -> String {
        (keys + (last.map { [$0] } ?? [])).map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}
