import Cricket
import Foundation
import Testing

@Suite struct DecodeErrorTests {
    func mutated(_ edit: (inout [String: Any]) -> Void) throws -> Data {
        let data = try ReferenceFiles.data("fixture-71344-live.trimmed.json")
        var root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var fixture = try #require(root["data"] as? [String: Any])
        edit(&fixture)
        root["data"] = fixture
        return try JSONSerialization.data(withJSONObject: root)
    }

    func decodeError(_ data: Data) -> SportMonksDecodeError? {
        do { _ = try SportMonksFixture.decode(from: data); return nil } catch { return error }
    }

    @Test func wrongTypeInRunsNamesPathAndFixture() throws {
        let data = try mutated { f in
            var runs = f["runs"] as! [[String: Any]]
            runs[0]["score"] = "182"
            f["runs"] = runs
        }
        guard case .invalidField(let id, let path, _)? = decodeError(data) else {
            Issue.record("expected invalidField"); return
        }
        #expect(id == 71344)
        #expect(path == "data.runs[0].score")
    }

    @Test func missingBallScoreIsRejected() throws {
        let data = try mutated { f in
            var balls = f["balls"] as! [[String: Any]]
            balls[1].removeValue(forKey: "score")
            f["balls"] = balls
        }
        guard case .invalidField(71344, let path, _)? = decodeError(data) else { Issue.record("expected invalidField"); return }
        #expect(path == "data.balls[1].score")
    }

    @Test func nullStatusIsRejected() throws {
        let data = try mutated { f in f["status"] = NSNull() }
        guard case .invalidField(71344, "data.status", _)? = decodeError(data) else { Issue.record("expected data.status"); return }
    }

    @Test func missingIdHasNoFixtureId() throws {
        let data = try mutated { f in f.removeValue(forKey: "id") }
        guard case .invalidField(nil, "data.id", _)? = decodeError(data) else { Issue.record("expected data.id"); return }
    }

    @Test func nullsAndUnknownKeysAreTolerated() throws {
        let data = try mutated { f in
            f["note"] = NSNull(); f["venue_id"] = NSNull(); f["brand_new_field"] = ["x": 1]
            f["tosswon"] = NSNull()
        }
        let fixture = try SportMonksFixture.decode(from: data)
        #expect(fixture.note == nil && fixture.tosswon == nil && fixture.venueId == nil)
    }

    @Test func listErrorNamesElementAndItsFixture() throws {
        let good = try ReferenceFiles.data("fixture-71344-live.trimmed.json")
        var element = try #require((try JSONSerialization.jsonObject(with: good) as? [String: Any])?["data"] as? [String: Any])
        var other = element
        other["id"] = 99
        var balls = other["balls"] as! [[String: Any]]
        var score = balls[2]["score"] as! [String: Any]
        score["runs"] = NSNull()
        balls[2]["score"] = score
        other["balls"] = balls
        element["id"] = 71344
        let data = try JSONSerialization.data(withJSONObject: ["data": [element, other]])
        do {
            _ = try SportMonksFixtureList.decode(from: data)
            Issue.record("expected failure")
        } catch {
            #expect(error == .invalidField(fixtureId: 99, path: "data[1].balls[2].score.runs", reason: "required Int is null"))
        }
    }

    @Test func notJSON() {
        #expect(throws: SportMonksDecodeError.self) { try SportMonksFixture.decode(from: Data("nope".utf8)) }
    }
}
