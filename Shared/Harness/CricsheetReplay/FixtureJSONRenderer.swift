import Contracts
import Cricket
import Foundation
import Synchronization
import Runtime

/// A replayed fixture as the JSON SportMonks serves: the fixture without its balls is encoded each time, each
/// delivery once and reused while it is unchanged (a Test's 1,705 deliveries are in each of its 1,705
/// snapshots; encoding them all every time dominated the fake feed, the benchmarks and the tests).
/// The result equals encoding the whole fixture. Sharing it is safe (one lock).
public final class FixtureJSONRenderer: Sendable {
    private let balls = LockedValue<[Int: (ball: SportMonksBall, json: JSONValue)]>([:])

    public init() {}

    /// `fixture` as a JSON value.
    /// - Throws: an encoding error (a fixture with a non-finite number).
    public func json(_ fixture: SportMonksFixture) throws -> JSONValue {
        var rest = fixture
        rest.balls = nil
        guard case .object(var members) = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(rest)) else {
            throw EncodingError.invalidValue(fixture.id, .init(codingPath: [], debugDescription: "a fixture encodes as an object"))
        }
        if let deliveries = fixture.balls {
            members["balls"] = .array(try balls.withLock { known in
                try deliveries.map { ball in
                    if let cached = known[ball.id], cached.ball == ball { return cached.json }
                    let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(ball))
                    known[ball.id] = (ball, json)
                    return json
                }
            })
        }
        return .object(members)
    }
}
