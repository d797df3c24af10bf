import PlistKit
import Bookmarks

/// A `UserDefaults`-class preferences store (placeholder until the Preferences issue lands).
public enum PreferencesPlaceholder {}
