// The page-view fields of one visitor as the visitors service's internal API answers them (the
// visitor half of the details lookup): the visitors service writes them, the gateway reads them.
// Not public (no schema, no place in the document): here so that neither service imports the other.

/** Counts and times of a visitor (ISO 8601), snake_case as on the wire. */
export interface InternalVisitorPageViews {
  page_views: number;
  sessions: number;
  first_seen: string;
  last_seen: string;
  last_page?: string;
  engaged_seconds: number;
}
