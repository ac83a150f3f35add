import Contracts
import Cricket
import Foundation
import Runtime

/// What the poller reads of one fixture of the feed: its change hash and its typed form.
///
/// The hash is `JSONValue.fingerprint` as 16 hex digits (stored in `matches.feed_hash`): the same fixture
/// gives the same hash whatever order the server wrote its keys in, without encoding the fixture (a Test's is
/// 2.4 MB by its last day). The typed fixture is decoded without its `balls`, which are most of it and
/// which the poller only forwards (the pager fingerprints each one; the detector decodes the new ones).
struct FixtureFingerprint: Sendable, Equatable {
    /// Hex hash of the whole fixture.
    let hash: String

    init(_ fixture: JSONValue) {
        hash = FNV1a.hex(fixture.fingerprint)
    }

    /// `item` decoded as a fixture, its `balls` left out.
    /// - Throws: the `DecodingError` of a fixture that does not decode (missing id or status, wrong types).
    static func fixtureWithoutBalls(_ item: JSONValue) throws -> SportMonksFixture {
        var light = item
        if case .object(var members) = item {
            members["balls"] = nil
            light = .object(members)
        }
        return try JSONDecoder().decode(SportMonksFixture.self, from: try JSONEncoder().encode(light))
    }
}
