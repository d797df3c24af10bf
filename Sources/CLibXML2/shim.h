#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU, so encoding.h would pull the system's <unicode/...> headers into this module, and those
   clash with the ICU module Foundation ships (UErrorCode defined twice) in any target that sees both. PlistKit
   never touches the ICU fields, which trail xmlCharEncodingHandler and are only reached through pointers. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/encoding.h>
