import CommandLineSupport
import Foundation
import MatchDayCheck

/// `sightscreen check-day --record DIR [--out DIR]`: issue 42's independent checker over a match-day record (what
/// mock-apns accepted and refused, what the feed served and when, the faults, the Cricsheet files; written by the fault
/// suite into `.stack/logs/fault/match-day` and by Benchmarks/match-day.sh). Prints the report, writes report.txt,
/// report.json and freshness.svg into `--out` (the record's folder by default) and exits 1 on any violation.
struct CheckDayCommand {
    let console: Console

    func run(_ options: ArraySlice<String>) throws {
        var record: String?
        var out: String?
        var iterator = options.makeIterator()
        while let option = iterator.next() {
            switch option {
            case "--record":
                guard let value = iterator.next() else { throw UsageError(message: "--record needs a folder") }
                record = value
            case "--out":
                guard let value = iterator.next() else { throw UsageError(message: "--out needs a folder") }
                out = value
            default: throw UsageError(message: "check-day: unknown option \(option)")
            }
        }
        guard let record else { throw UsageError(message: "check-day needs --record DIR") }
        let directory = URL(fileURLWithPath: record)
        let report = try MatchDayReport.check(MatchDayRecord.read(from: directory))
        let output = out.map(URL.init(fileURLWithPath:)) ?? directory
        try report.write(to: output)
        console.line(String(report.text.dropLast()))
        console.line("written: \(output.path)/report.txt, report.json, freshness.svg")
        if !report.violations.isEmpty { throw ExitCode(status: 1) }
    }
}
