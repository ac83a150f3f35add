import Contracts
import Cricket
import Foundation

/// The shape of JSON values seen at one path: JSON types (int and double both count as "number"),
/// members of objects (merged over every object seen) and the merged shape of array elements.
public struct JSONShape {
    public var types: Set<String> = []
    public var members: [String: JSONShape] = [:]
    /// Shape of array elements (boxed in an array: a struct cannot hold itself directly).
    private var elementBox: [JSONShape] = []
    public var element: JSONShape? {
        get { elementBox.first }
        set { elementBox = newValue.map { [$0] } ?? [] }
    }

    public static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .int, .double: "number"
        default: value.typeName
        }
    }

    public init() {}

    public init(of value: JSONValue) { add(value) }

    public mutating func add(_ value: JSONValue) {
        types.insert(Self.typeName(value))
        switch value {
        case .object(let object):
            for (key, member) in object { members[key, default: JSONShape()].add(member) }
        case .array(let items):
            for item in items {
                var merged = element ?? JSONShape()
                merged.add(item)
                element = merged
            }
        default: break
        }
    }
}

/// One difference between a candidate JSON document and a reference shape. Paths use "[]" for array elements.
public struct ShapeDifference: CustomStringConvertible, Hashable {
    public enum Kind: String { case missingKey, extraKey, typeMismatch, nullWhereValue }
    public var kind: Kind
    public var path: String
    public var detail: String
    public var description: String { "\(kind.rawValue) \(path): \(detail)" }
}

/// Compares a candidate document with the reference shape: object key sets, array element shapes and
/// JSON types. A value where the reference only has null is accepted; null where the reference has a
/// value is reported as `nullWhereValue` (the caller decides which of those are acceptable).
public enum ShapeComparer {
    public static func compare(_ candidate: JSONValue, to reference: JSONShape, path: String = "") -> [ShapeDifference] {
        var out: [ShapeDifference] = []
        walk(candidate, reference, path, &out)
        return out
    }

    private static func walk(_ value: JSONValue, _ shape: JSONShape, _ path: String, _ out: inout [ShapeDifference]) {
        let type = JSONShape.typeName(value)
        let valueTypes = shape.types.subtracting(["null"])
        if type == "null" {
            if !shape.types.contains("null") {
                out.append(.init(kind: .nullWhereValue, path: path, detail: "reply has \(valueTypes.sorted())"))
            }
            return
        }
        if valueTypes.isEmpty { return }  // reply only had null here: any value is fine
        guard valueTypes.contains(type) else {
            out.append(.init(kind: .typeMismatch, path: path, detail: "\(type) where reply has \(valueTypes.sorted())"))
            return
        }
        switch value {
        case .object(let object):
            for key in shape.members.keys where object[key] == nil {
                out.append(.init(kind: .missingKey, path: join(path, key), detail: "missing"))
            }
            for (key, member) in object {
                guard let memberShape = shape.members[key] else {
                    out.append(.init(kind: .extraKey, path: join(path, key), detail: "not in reply"))
                    continue
                }
                walk(member, memberShape, join(path, key), &out)
            }
        case .array(let items):
            guard let elementShape = shape.element else { return }
            for item in items { walk(item, elementShape, path + "[]", &out) }
        default: break
        }
    }

    private static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }
}
