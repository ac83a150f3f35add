import FakeFeed
import Foundation

/// Command-line options of `fake-sportmonks`.
struct FakeSportmonksOptions {
    var matchesDirectory = "../shared/data/cricsheet"
    var host = "127.0.0.1"
    var port: UInt16 = 8090
    var feed = FakeFeedConfiguration()

    static let help = """
        fake-sportmonks: replays Cricsheet matches as the SportMonks Cricket API v2.0.

        usage: fake-sportmonks --matches DIR [--port N] [--speed X] [options]

          --matches DIR         folder of Cricsheet <id>.json files (default ../shared/data/cricsheet)
          --port N              port on 127.0.0.1 (default 8090; 0 = any free port)
          --host ADDR           listen address (default 127.0.0.1)
          --speed X             replay speed in DELIVERIES PER SECOND (default 1; 0.5 = one ball every 2 s).
                                Every timeline step (a delivery, one step of an innings break) lasts 1/X s.
          --live ID,ID          Cricsheet ids that start live now (several may be live at once)
          --upcoming-days N     schedule every other match N days from today (3 h apart) instead of
                                on its real Cricsheet date (real dates are long past: shown Finished)
          --start-hour H        UTC hour of scheduled starts (default 14)
          --api-token T         api_token the API requires (default dev-token; env FAKE_SPORTMONKS_API_TOKEN)
          --admin-token T       token of /admin (default admin-token; env FAKE_SPORTMONKS_ADMIN_TOKEN)
          --id-offset N         added to every Cricsheet id to form the fixture id (default 0)
          --break-steps N       steps an innings break, lunch, tea or rain lasts; stumps 3x (default 5)
          --linger-steps N      steps a finished match stays in /livescores (default 10)

        API:   GET /api/v2.0/livescores, /api/v2.0/fixtures/{id}, /api/v2.0/fixtures
               (?api_token=…&include=a,b.c&filter[starts_between]=YYYY-MM-DD,YYYY-MM-DD&page=N)
        Admin: GET /admin/matches, POST /admin/matches/{id}/start|pause|resume|reset,
               POST /admin/matches/{id}/seek {"delivery":N}, POST /admin/speed {"speed":X},
               GET|POST|DELETE /admin/faults {"kind":"500|429|403|truncated|garbage|missing_fields|score_backwards",
               "count":K,"retryAfter":S,"endpoint":"livescores"}, GET /admin/stats
               (header X-Admin-Token: T)
        """

    /// Why the command line was rejected.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses `arguments` (without the program name); nil when `--help` was asked for.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> FakeSportmonksOptions? {
        var options = FakeSportmonksOptions()
        if let token = environment["FAKE_SPORTMONKS_API_TOKEN"], !token.isEmpty { options.feed.apiToken = token }
        if let token = environment["FAKE_SPORTMONKS_ADMIN_TOKEN"], !token.isEmpty { options.feed.adminToken = token }
        var rest = arguments[...]
        func value(_ flag: String) throws(UsageError) -> String {
            guard let next = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return next
        }
        func integer(_ flag: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
            let text = try value(flag)
            guard let number = Int(text), range.contains(number) else {
                throw UsageError(description: "\(flag) \(text): expected an integer in \(range)")
            }
            return number
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--help", "-h": return nil
            case "--matches": options.matchesDirectory = try value(flag)
            case "--host": options.host = try value(flag)
            case "--port": options.port = UInt16(try integer(flag, 0...65535))
            case "--speed":
                let text = try value(flag)
                guard let speed = Double(text), speed > 0, speed.isFinite else {
                    throw UsageError(description: "--speed \(text): expected deliveries per second > 0")
                }
                options.feed.speed = speed
            case "--live":
                let text = try value(flag)
                let ids = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard ids.allSatisfy({ $0 != nil }) else { throw UsageError(description: "--live \(text): expected ID,ID") }
                options.feed.liveMatchIds = Set(ids.compactMap { $0 })
            case "--upcoming-days": options.feed.upcomingDays = try integer(flag, 0...365)
            case "--start-hour": options.feed.startHourUTC = try integer(flag, 0...23)
            case "--api-token": options.feed.apiToken = try value(flag)
            case "--admin-token": options.feed.adminToken = try value(flag)
            case "--id-offset": options.feed.idOffset = try integer(flag, 0...1_000_000_000_000_000)
            case "--break-steps": options.feed.breakSteps = try integer(flag, 1...10_000)
            case "--linger-steps": options.feed.lingerSteps = try integer(flag, 0...100_000)
            default: throw UsageError(description: "unknown option \(flag) (see --help)")
            }
        }
        return options
    }
}
