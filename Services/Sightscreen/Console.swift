import Foundation

/// The CLI's output: results on stdout, errors on stderr (the CLI's product, not logging).
struct Console: Sendable {
    func line(_ text: String) {
        // A closed stdout (the `tee` of `scripts/demo | tee` gone after Ctrl-C) must not stop the
        // CLI before it has stopped its children: SIGPIPE is ignored in main and EPIPE dropped here.
        try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
    }

    func error(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }

    /// Prints rows as aligned columns under `header`.
    func table(_ header: [String], _ rows: [[String]]) {
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

/// A command line the CLI does not understand.
struct UsageError: Error {
    let message: String
}
