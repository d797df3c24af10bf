import PlistKit
import CSystem

/// Bookmark data: persistent file references (placeholder until the Bookmarks issue lands).
public enum Bookmark {}
