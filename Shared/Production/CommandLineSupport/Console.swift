import Foundation

/// A command-line tool's output: results on stdout, errors on stderr (the tool's product, not logging).
public struct Console: Sendable {
    public init() {}

    /// One line on stdout.
    public func line(_ text: String) {
        // A closed stdout (the `tee` of `scripts/demo | tee` gone after Ctrl-C) must not stop the
        // CLI before it has stopped its children: SIGPIPE is ignored in main and EPIPE dropped here.
        try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
    }

    /// One line on stderr.
    public func error(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }

    /// A report on stdout: pretty, sorted JSON with `json`, else its text (the `--json` switch of the report commands).
    public func report(_ value: some Encodable, json: Bool, text: () -> String) throws {
        guard json else { return line(text()) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        line(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Prints rows as aligned columns under `header`.
    public func table(_ header: [String], _ rows: [[String]]) {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        line(render(header))
        for row in rows { line(render(row)) }
    }
}

/// A command line the tool does not understand (printed with the usage, exit status 2).
public struct UsageError: Error {
    public let message: String

    public init(message: String) { self.message = message }
}

/// Ends the tool with a given status (the failure was already reported).
public struct ExitCode: Error {
    public let status: Int32

    public init(status: Int32) { self.status = status }
}
