@testable import API
import Foundation
import Postgres
import Testing

/// SQL-injection strings in every string field of every body, in every path parameter and in the
/// query string are stored verbatim or refused with 400 — never executed: the tables still exist and
/// a bystander's rows are unchanged.
@Suite("SQL injection strings are data, never SQL")
struct InjectionTests {
    static let strings = [
        "'; DROP TABLE devices; --", "\" OR 1=1 --", "' OR '1'='1", "1; DELETE FROM match_follows", "x\u{0}y", "\u{0}",
        "’ OR ‘1’=‘1", "ʼ; DROP TABLE live_activities; --", "admin'--", "$1", "%s%s%n", "\\'; SELECT pg_sleep(5); --",
        "' UNION SELECT user_id, device_id FROM devices --", "🏏'); TRUNCATE matches; --",
    ]

    /// Percent-encodes everything but unreserved characters (so the string reaches the router intact).
    static func pathEncoded(_ value: String) -> String {
        value.utf8.map { byte -> String in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                String(UnicodeScalar(byte))
            default: String(format: "%%%02X", byte)
            }
        }.joined()
    }

    @Test func injectionStringsAreStoredVerbatimOrRefused() async throws {
        let api = try await APITestHarness.shared()
        let bystander = APITestHarness.unique("bystander")
        let attacker = APITestHarness.unique("attacker")
        let match = APITestHarness.unique("m")
        try await api.seedMatch(match, live: true)
        try await api.registerDevice(bystander, "phone")
        try await api.registerDevice(attacker, "phone")
        #expect(try await api.call("POST", "/user/follow/match", as: bystander, json: ["matchId": match]).status == 200)
        #expect(try await api.call("POST", "/user/follow/match", as: attacker, json: ["matchId": match]).status == 200)
        let before = try await api.snapshot(of: bystander)
        let matchesBefore = try await api.database.query("SELECT count(*) AS n FROM matches WHERE match_id = $1", [match])

        var stored = 0
        var refused = 0
        for bad in Self.strings {
            let hex = APITestHarness.hexToken()
            let bodies: [(String, String, [String: Any])] = [
                ("POST", "/user/follow/match", ["matchId": bad]),
                ("POST", "/user/follow/match", ["matchId": match, "deviceId": bad]),
                ("DELETE", "/user/follow/match", ["matchId": bad]),
                ("POST", "/matches/\(match)/follow", ["deviceId": bad]),
                ("POST", "/matches/\(match)/unfollow", ["deviceId": bad]),
                ("POST", "/matches/\(match)/activity-token", ["token": bad, "deviceId": "phone"]),
                ("POST", "/matches/\(match)/activity-token", ["token": APITestHarness.hexToken(length: 160), "deviceId": bad]),
                ("POST", "/matches/\(match)/activity-dismissed", ["deviceId": bad]),
                ("POST", "/devices", ["deviceId": bad, "apnsEnvironment": "sandbox", "appVersion": "1.0"]),
                ("POST", "/devices", ["deviceId": "phone", "apnsEnvironment": bad, "appVersion": "1.0"]),
                ("POST", "/devices", ["deviceId": "phone", "apnsEnvironment": "sandbox", "appVersion": "1.0", "pushToken": bad]),
                ("POST", "/devices", ["deviceId": "phone", "apnsEnvironment": "sandbox", "appVersion": "1.0", "pushToStartToken": bad]),
                ("POST", "/devices", ["deviceId": "phone", "apnsEnvironment": "sandbox", "appVersion": bad, "pushToken": hex]),
            ]
            for (method, path, json) in bodies {
                let response = try await api.call(method, path, as: attacker, json: json)
                #expect([200, 400].contains(response.status), "\(method) \(path) \(json): \(response.status) \(response.text)")
                if response.status == 400 { refused += 1 }
                if response.status == 200, path == "/devices", json["appVersion"] as? String == bad {
                    // Accepted: it must be stored byte for byte.
                    let row = try #require(try await api.database.query(
                        "SELECT app_version, push_token FROM devices WHERE user_id = $1 AND device_id = 'phone'", [attacker]).first)
                    #expect(try row.decode("app_version", as: String.self) == bad)
                    #expect(try row.decode("push_token", as: String.self) == hex)
                    stored += 1
                }
            }
            let encoded = Self.pathEncoded(bad)
            let paths: [(String, String, [String: Any]?)] = [
                ("POST", "/matches/\(encoded)/follow", nil), ("POST", "/matches/\(encoded)/unfollow", nil),
                ("POST", "/matches/\(encoded)/activity-token", ["token": APITestHarness.hexToken(length: 160), "deviceId": "phone"]),
                ("POST", "/matches/\(encoded)/activity-dismissed", ["deviceId": "phone"]),
                ("GET", "/matches/\(encoded)", nil), ("DELETE", "/devices/\(encoded)", nil), ("GET", "/matches?date=\(encoded)", nil),
            ]
            for (method, path, json) in paths {
                let response = try await api.call(method, path, as: attacker, json: json)
                #expect([400, 404].contains(response.status), "\(method) \(path): \(response.status) \(response.text)")
                refused += 1
            }
        }
        // Printable ASCII strings of ≤ 32 bytes are valid app versions: stored verbatim.
        #expect(stored == Self.strings.filter { $0.utf8.count <= 32 && $0.utf8.allSatisfy { (0x20...0x7E).contains($0) } }.count)
        #expect(refused > 0)

        for table in ["devices", "match_follows", "live_activities", "matches", "active_matches"] {
            let exists = try await api.database.query("SELECT to_regclass($1)::text AS t", [APITestHarness.schema + "." + table])
            #expect(try exists.first?.decode("t", as: String?.self) == table, "table \(table) still exists")
        }
        #expect(try await api.snapshot(of: bystander) == before, "the bystander's rows are unchanged")
        let matchesAfter = try await api.database.query("SELECT count(*) AS n FROM matches WHERE match_id = $1", [match])
        #expect(try matchesAfter.first?.decode("n", as: Int64.self) == matchesBefore.first?.decode("n", as: Int64.self))
        #expect(try await api.call("GET", "/user/follows", as: bystander).text.contains(match))
    }
}
