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
/// The fast path decodes the message once with `FastJSONDecoder`, straight into a `SportMonksFixture` (a whole
/// fixture with its balls is ~200 KB; Foundation's JSONDecoder spends ~3 ms on it, FastJSON a fraction of
/// that). Anything the fast path rejects goes through the old JSONDecoder path and then `MessageCodec.decode`,
/// so a message FastJSON is stricter about still decodes as before, and a bad message fails with exactly
/// the contract's error.
public enum SnapshotDecoding {
    /// The snapshot's header fields and its typed fixture.
    public struct Decoded: Sendable {
        public var matchId: String
        public var polledAt: Int64
        public var fixture: SportMonksFixture
    }

    struct Typed: Decodable, Sendable {
        var schema: Int
        var matchId: String
        var polledAt: Int64
        var fixture: SportMonksFixture
    }

    struct Schema: Decodable {
        var schema: Int?
    }

    /// Decodes one message's bytes.
    /// - Parameter reusing: when given, balls whose JSON is unchanged since the last message decoded with the
    ///   same cache are taken from it instead of decoded again (use one cache per match: `SnapshotReuseCaches`).
    ///   The result is the same either way.
    public static func decode(_ bytes: [UInt8], reusing cache: FastJSONReuseCache? = nil) throws(SnapshotDecodeError) -> Decoded {
        if bytes.count <= MessageCodec.maximumMessageBytes {
            let fast: Typed? = if let cache {
                try? FastJSONDecoder().decode(Typed.self, from: bytes, reusing: cache)
            } else {
                try? FastJSONDecoder().decode(Typed.self, from: bytes)
            }
            if let typed = fast, typed.schema == FixtureSnapshot.currentSchema {
                return Decoded(matchId: typed.matchId, polledAt: typed.polledAt, fixture: typed.fixture)
            }
            if let typed = try? JSONDecoder().decode(Typed.self, from: Data(bytes)),
               typed.schema == FixtureSnapshot.currentSchema {
                return Decoded(matchId: typed.matchId, polledAt: typed.polledAt, fixture: typed.fixture)
            }
        }
        let snapshot: FixtureSnapshot
        do { snapshot = try MessageCodec.decode(FixtureSnapshot.self, from: bytes) } catch { throw .message(error) }
        return Decoded(matchId: snapshot.matchId, polledAt: snapshot.polledAt, fixture: try fixture(of: snapshot))
    }

    /// The typed fixture of an already decoded `snapshot`.
    public static func fixture(of snapshot: FixtureSnapshot) throws(SnapshotDecodeError) -> SportMonksFixture {
        do {
            let data = try JSONEncoder().encode(snapshot.fixture)
            return try JSONDecoder().decode(SportMonksFixture.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw .fixture(matchId: snapshot.matchId, reason: "missing \(path(context.codingPath, key))")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .fixture(matchId: snapshot.matchId, reason: "wrong type at \(path(context.codingPath, nil))")
        } catch let DecodingError.valueNotFound(_, context) {
            throw .fixture(matchId: snapshot.matchId, reason: "null at \(path(context.codingPath, nil))")
        } catch {
            throw .fixture(matchId: snapshot.matchId, reason: String(describing: error))
        }
    }

    static func path(_ keys: [any CodingKey], _ last: (any CodingKey)?) -> String {
        (keys + (last.map { [$0] } ?? [])).map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}
