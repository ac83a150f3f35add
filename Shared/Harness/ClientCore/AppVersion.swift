import Foundation

/// A dotted numeric app version ("1.10.0"), compared component by component with missing
/// components as zero, so "1.10.0" > "1.9.9" and "1.2" == "1.2.0". A "-beta"/"+build" suffix is ignored.
public struct AppVersion: Sendable, Comparable, CustomStringConvertible {
    /// The numeric components, e.g. [1, 10, 0].
    public let components: [Int]
    public let description: String

    /// Parses `text`; throws `AppVersionError` naming the text when it is not a version.
    public init(_ text: String) throws(AppVersionError) {
        var core = Substring(text.trimmingCharacters(in: .whitespaces))
        if core.first == "v" || core.first == "V" { core = core.dropFirst() }
        if let cut = core.firstIndex(where: { $0 == "-" || $0 == "+" }) { core = core[..<cut] }
        let parts = core.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { throw AppVersionError(text: text) }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber), let number = Int(part)
            else { throw AppVersionError(text: text) }
            numbers.append(number)
        }
        components = numbers
        description = text
    }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        let count = max(lhs.components.count, rhs.components.count)
        for index in 0..<count {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    public static func == (lhs: AppVersion, rhs: AppVersion) -> Bool { !(lhs < rhs) && !(rhs < lhs) }
}

/// Text that is not a dotted numeric version.
public struct AppVersionError: Error, Sendable, Equatable {
    public var text: String
    public init(text: String) { self.text = text }
}
