import SharedTestSupport
import Contracts
import Cricket
import CricsheetReplay
import Foundation
import Testing

/// The built fixture has the recorded reply's keys and JSON types.
@Suite struct ShapeTests {
    static let allowedExtra: Set<String> = ["data.scoreboards"]
    /// Facts Cricsheet does not carry, written as null.
    static let unknownFacts: Set<String> = ["country_id", "dateofbirth", "battingstyle", "bowlingstyle", "position",
                                            "capacity", "floodlight", "city"]
    /// Nullable in SportMonks (documented "string or null"), null when Cricsheet lists no powerplay.
    static let nullable: Set<String> = ["data.runs[].pp1", "data.stage.code"]

    func replyShape() throws -> JSONShape {
        let data = try Data(contentsOf: DataDirectory.reference.appendingPathComponent("fixture-71344-live.json"))
        return JSONShape(of: try JSONDecoder().decode(JSONValue.self, from: data))
    }

    func differences(_ id: Int, _ position: (CricsheetMatch) -> ReplayPosition) throws -> [ShapeDifference] {
        let match = try DataDirectory.match(id)
        let data = try SportMonksFixtureBuilder(match: match).envelope(at: position(match))
        let candidate = try JSONDecoder().decode(JSONValue.self, from: data)
        let all = Set(ShapeComparer.compare(candidate, to: try replyShape()))
        return all.filter { difference in
            switch difference.kind {
            case .extraKey: return !Self.allowedExtra.contains(difference.path)
            case .nullWhereValue:
                let field = String(difference.path.split(separator: ".").last ?? "")
                return !Self.unknownFacts.contains(field) && !Self.nullable.contains(difference.path)
            case .missingKey, .typeMismatch: return true
            }
        }.sorted { $0.path < $1.path }
    }

    @Test(arguments: [1304076, 1144504, 1216517])
    func midSecondInningsMatchesReplyShape(id: Int) throws {
        let diffs = try differences(id) { match in
            .inProgress(match.innings[0].deliveryCount + 9)
        }
        #expect(diffs.isEmpty, "\(diffs.map(\.description).joined(separator: "\n"))")
    }

    @Test(arguments: [1304076, 1144504, 1216517, 1298152])
    func finishedMatchesReplyShape(id: Int) throws {
        let diffs = try differences(id) { $0.finalPosition }
        #expect(diffs.isEmpty, "\(diffs.map(\.description).joined(separator: "\n"))")
    }

    @Test func comparerReportsEveryKind() throws {
        let reference = JSONShape(of: .object(["a": .int(1), "b": .string("x"), "c": .null,
                                               "d": .array([.object(["e": .bool(true)])])]))
        let candidate = JSONValue.object(["a": .string("1"), "c": .int(3), "d": .array([.object(["e": .null, "f": .int(1)])]),
                                          "z": .int(0)])
        let kinds = Set(ShapeComparer.compare(candidate, to: reference).map { "\($0.kind.rawValue) \($0.path)" })
        #expect(kinds == ["typeMismatch a", "missingKey b", "nullWhereValue d[].e", "extraKey d[].f", "extraKey z"])
    }
}
