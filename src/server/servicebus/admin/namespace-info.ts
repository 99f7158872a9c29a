import { type AdminAnswer, type AdminContext, API_VERSION } from "./admin-answers.js";
import {
  atomEntryDocument,
  ENTRY_CONTENT_TYPE,
  SCHEMA_INSTANCE_NAMESPACE,
  SERVICE_BUS_NAMESPACE,
} from "./atom.js";
import { xmlElement, xmlText } from "./xml.js";

/** `GET /$namespaceinfo`: the namespace as a Standard one (the SDK's `getNamespaceProperties`). */
export function namespaceInfo(context: AdminContext): AdminAnswer {
  const started = context.startedAt.toISOString();
  const info = xmlElement(
    "NamespaceInfo",
    xmlText("Alias", context.namespaceName) +
      xmlText("CreatedTime", started) +
      xmlText("MessagingSKU", "Standard") +
      xmlText("MessagingUnits", "0") +
      xmlText("ModifiedTime", started) +
      xmlText("Name", context.namespaceName) +
      xmlText("NamespaceType", "Messaging"),
    { xmlns: SERVICE_BUS_NAMESPACE, "xmlns:i": SCHEMA_INSTANCE_NAMESPACE },
  );
  const body = atomEntryDocument({
    id: `${context.origin}/$namespaceinfo?api-version=${API_VERSION}`,
    title: context.namespaceName,
    published: context.startedAt,
    updated: context.startedAt,
    author: context.namespaceName,
    content: info,
  });
  return { status: 200, contentType: ENTRY_CONTENT_TYPE, body };
}
