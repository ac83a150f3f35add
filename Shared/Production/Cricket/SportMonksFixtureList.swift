import Contracts
import Foundation

/// A list reply: `{"data":[fixture,…]}` from GET /livescores, or the paginated GET /fixtures
/// (`links` and `meta` kept as raw JSON when present).
public struct SportMonksFixtureList: Sendable, Hashable, Codable {
    public var data: [SportMonksFixture]
    public var links: JSONValue?
    public var meta: JSONValue?

    public init(data: [SportMonksFixture], links: JSONValue? = nil, meta: JSONValue? = nil) {
        self.data = data; self.links = links; self.meta = meta
    }

    /// Decodes a list envelope. A failing element names its index and fixture id, e.g.
    /// `invalidField(fixtureId: 71344, path: "data[2].balls[10].score.runs", …)`.
    public static func decode(from data: Data) throws(SportMonksDecodeError) -> SportMonksFixtureList {
        do {
            return try JSONDecoder().decode(SportMonksFixtureList.self, from: data)
        } catch {
            throw SportMonksDecodeError.from(error, data: data)
        }
    }

    /// `meta.current_page` and `meta.last_page` of a paginated reply, when present.
    public var page: (current: Int, last: Int)? {
        guard case .int(let current)? = meta?["current_page"], case .int(let last)? = meta?["last_page"] else { return nil }
        return (current, last)
    }

    /// Encodes compactly; `links`/`meta` only when present (livescores has neither).
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(data, forKey: .data)
        try c.encodeIfPresent(links, forKey: .links)
        try c.encodeIfPresent(meta, forKey: .meta)
    }

    enum CodingKeys: String, CodingKey { case data, links, meta }
}
