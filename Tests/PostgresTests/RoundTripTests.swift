import Foundation
import Postgres
import Testing

extension PostgresServerTests {
    /// Awkward values go in as parameters and come back unchanged.
    @Suite("Parameter round trip")
    struct RoundTripTests {
        static let awkwardStrings = [
            "", "it's", "''", "back\\slash\\", "\\x00 not a byte", "\"double\"", "line\nbreak\ttab\r",
            "emoji 🏏🔥 and ünïcödé 日本語 עברית", "%_ LIKE wildcards", "$1 looks like a placeholder", "E'\\n'",
            String(repeating: "0123456789abcdef", count: 65_536),  // 1 MiB
        ]

        @Test("strings with quotes, backslashes, unicode and 1 MiB survive a table round trip")
        func strings() async throws {
            let client = try await TestDatabase.client()
            let table = TestDatabase.uniqueName("rt_text")
            try await client.execute("CREATE TABLE \(table) (id int PRIMARY KEY, value text)")
            for (index, value) in Self.awkwardStrings.enumerated() {
                try await client.execute("INSERT INTO \(table) (id, value) VALUES ($1, $2)", [index, value])
            }
            let rows = try await client.query("SELECT id, value FROM \(table) ORDER BY id")
            #expect(rows.count == Self.awkwardStrings.count)
            for row in rows {
                let id = try row.decode("id", as: Int.self)
                #expect(try row.decode("value", as: String.self) == Self.awkwardStrings[id], "value \(id)")
            }
            let echoed = try await client.query("SELECT $1::text AS value, length($1::text) AS n", [Self.awkwardStrings[7]])
            #expect(try echoed[0].decode("value", as: String.self) == Self.awkwardStrings[7])
            #expect(try echoed[0].decode("n", as: Int.self) == Self.awkwardStrings[7].count)
            try await client.execute("DROP TABLE \(table)")
            await client.shutdown()
        }

        @Test("a text[] literal carries every awkward string (commas, braces, quotes, backslashes, NULL, unicode) unchanged")
        func textArrays() async throws {
            let client = try await TestDatabase.client()
            let values = Self.awkwardStrings.dropLast() + ["a,b", "{braces}", "NULL", "null", " spaced "]
            let rows = try await client.query("SELECT ordinality::int AS i, v FROM unnest($1::text[]) WITH ORDINALITY AS u(v, ordinality) ORDER BY 1",
                                              [PostgresTextArray.literal(values)])
            #expect(rows.count == values.count)
            for row in rows {
                let index = try row.decode("i", as: Int.self) - 1
                #expect(try row.decode("v", as: String.self) == Array(values)[index], "element \(index)")
            }
            #expect(PostgresTextArray.literal([String]()) == "{}")
            await client.shutdown()
        }

        @Test("NULL binds and decodes as nil; non-optional decode of NULL names the column")
        func nulls() async throws {
            let client = try await TestDatabase.client()
            let none: String? = nil
            let rows = try await client.query(
                "SELECT $1::text AS t, $2::bigint AS i, $3::bytea AS b, $4::timestamptz AS d, $5::jsonb AS j",
                [none, nil, nil, nil, nil])
            let row = try #require(rows.first)
            #expect(try row.decode("t", as: String?.self) == nil)
            #expect(try row.decode("i", as: Int?.self) == nil)
            #expect(try row.decode("b", as: Data?.self) == nil)
            #expect(try row.decode("d", as: Date?.self) == nil)
            #expect(try row.decode("j", as: PostgresJSON?.self) == nil)
            #expect(try row.isNull("t"))
            do {
                _ = try row.decode("i", as: Int.self)
                Issue.record("decoding NULL as Int should throw")
            } catch PostgresError.decode(let column, let expected, let actual) {
                #expect(column == "i" && expected == "Int" && actual == "NULL")
            }
            await client.shutdown()
        }

        @Test("bytea with zero bytes and every byte value, as Data and [UInt8]")
        func bytea() async throws {
            let client = try await TestDatabase.client()
            let allBytes = [UInt8](0...255) + [0, 0, 0]
            let zeros = Data([0, 1, 0, 0, 255, 0])
            let rows = try await client.query(
                "SELECT $1::bytea AS a, $2::bytea AS b, length($1::bytea) AS n", [allBytes, zeros])
            #expect(try rows[0].decode("a", as: [UInt8].self) == allBytes)
            #expect(try rows[0].decode("b", as: Data.self) == zeros)
            #expect(try rows[0].decode("n", as: Int.self) == 259)
            await client.shutdown()
        }

        @Test("integer limits, doubles, booleans and UUIDs")
        func numbers() async throws {
            let client = try await TestDatabase.client()
            let row = try await client.query(
                """
                SELECT $1::bigint AS min64, $2::bigint AS max64, $3::int AS min32, $4::int AS max32,
                       $5::smallint AS s, $6::bigint AS i, $7::boolean AS yes, $8::boolean AS no, $9::uuid AS id
                """,
                [Int64.min, Int64.max, Int32.min, Int32.max, Int16(-7), Int.max, true, false,
                 UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!])[0]
            #expect(try row.decode("min64", as: Int64.self) == .min)
            #expect(try row.decode("max64", as: Int64.self) == .max)
            #expect(try row.decode("min32", as: Int32.self) == .min)
            #expect(try row.decode("max32", as: Int32.self) == .max)
            #expect(try row.decode("s", as: Int16.self) == -7)
            #expect(try row.decode("i", as: Int.self) == .max)
            #expect(try row.decode("yes", as: Bool.self) == true)
            #expect(try row.decode("no", as: Bool.self) == false)
            #expect(try row.decode("id", as: UUID.self) == UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF"))
            #expect(try row.decode(0, as: Int64.self) == .min)

            let doubles: [Double] = [
                0.1, -0.0, 1e308, .leastNonzeroMagnitude, .pi, -.greatestFiniteMagnitude, .infinity, -.infinity, 1.0000000000000002,
            ]
            for value in doubles {
                let decoded = try await client.query("SELECT $1::float8 AS d", [value])[0].decode("d", as: Double.self)
                #expect(decoded.bitPattern == value.bitPattern, "\(value) came back as \(decoded)")
            }
            let nan = try await client.query("SELECT $1::float8 AS d", [Double.nan])[0].decode("d", as: Double.self)
            #expect(nan.isNaN)
            await client.shutdown()
        }

        @Test("timestamptz keeps microseconds; timestamp and date decode as UTC")
        func dates() async throws {
            let client = try await TestDatabase.client()
            let dates = [
                Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_700_000_000.123456),
                Date(timeIntervalSince1970: -2_208_988_800.5),  // 1900-01-01 minus half a second
                Date(timeIntervalSince1970: 4_133_980_799.999999),  // 2100-12-31 23:59:59.999999
            ]
            for date in dates {
                let row = try await client.query("SELECT $1::timestamptz AS d, ($1::timestamptz)::text AS t", [date])[0]
                let decoded = try row.decode("d", as: Date.self)
                let text = try row.decode("t", as: String.self)
                #expect(abs(decoded.timeIntervalSince1970 - date.timeIntervalSince1970) < 1e-6,
                    "\(date.timeIntervalSince1970) came back as \(decoded.timeIntervalSince1970) (\(text))")
            }
            let fixed = try await client.query(
                """
                SELECT '2024-02-29 12:34:56.5+05:30'::timestamptz AS tz, '2024-02-29 12:34:56'::timestamp AS ts,
                       '2024-02-29'::date AS d, 'infinity'::timestamptz AS inf
                """)[0]
            #expect(try fixed.decode("tz", as: Date.self).timeIntervalSince1970 == 1_709_190_296.5)
            #expect(try fixed.decode("ts", as: Date.self).timeIntervalSince1970 == 1_709_210_096)
            #expect(try fixed.decode("d", as: Date.self).timeIntervalSince1970 == 1_709_164_800)
            #expect(try fixed.decode("inf", as: Date.self) == .distantFuture)
            await client.shutdown()
        }

        @Test("jsonb goes in as text and comes back as equal JSON")
        func json() async throws {
            struct Card: Codable, Equatable {
                var title: String
                var overs: Double
                var tags: [String]
            }
            let client = try await TestDatabase.client()
            let card = Card(title: "India 87/6 — \"Rohit\" \\ 🏏", overs: 14.3, tags: ["live", "it's"])
            let row = try await client.query(
                "SELECT $1::jsonb AS j, $1::jsonb ->> 'title' AS title", [try PostgresJSON(encoding: card)])[0]
            #expect(try row.decode("j", as: PostgresJSON.self).decode(Card.self) == card)
            #expect(try row.decode("title", as: String.self) == card.title)
            let table = TestDatabase.uniqueName("rt_json")
            try await client.execute("CREATE TABLE \(table) (doc jsonb NOT NULL)")
            try await client.execute("INSERT INTO \(table) (doc) VALUES ($1)", [PostgresJSON(#"{"a": [1, null, "x"]}"#)])
            let stored = try await client.query("SELECT doc FROM \(table)")[0].decode("doc", as: PostgresJSON.self)
            #expect(stored.text == #"{"a": [1, null, "x"]}"#)
            try await client.execute("DROP TABLE \(table)")
            await client.shutdown()
        }

        @Test("decode errors name the column and type; the value is only in debugDescription")
        func decodeErrors() async throws {
            let client = try await TestDatabase.client()
            let row = try await client.query("SELECT $1::text AS secret", ["card 4111-1111"])[0]
            do {
                _ = try row.decode("secret", as: Int.self)
                Issue.record("decoding text as Int should throw")
            } catch let error as PostgresError {
                #expect("\(error)".contains("secret") && "\(error)".contains("Int"))
                #expect(!"\(error)".contains("4111"))
                #expect(String(reflecting: error).contains("4111"))
            }
            #expect(throws: PostgresError.self) { try row.decode("missing", as: String.self) }
            await client.shutdown()
        }

        @Test("prepared statements are prepared once per connection and reused")
        func prepared() async throws {
            let client = try await TestDatabase.client(maxConnections: 1)
            for value in 1...5 {
                let row = try await client.query("SELECT $1::bigint * 2 AS doubled", [value], prepared: true)[0]
                #expect(try row.decode("doubled", as: Int.self) == value * 2)
            }
            let count = try await client.query(
                "SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = $1",
                ["SELECT $1::bigint * 2 AS doubled"])[0].decode("n", as: Int.self)
            #expect(count == 1)
            await client.shutdown()
        }
    }
}
