// ValidationResult <-> `validate --format json`'s document; see Validation.hpp. Keys are written in the order
// nlohmann::json keeps them (sorted), so the text depends only on the values.
#include "api/calibration/Validation.hpp"

#include "api/run/JsonFields.hpp"

#include <stdexcept>

namespace ccsim::api {

namespace {
using json = nlohmann::json;

json number_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

// A table's statistics: each field with its name in the document, so the writer and the reader share one list.
struct TableField {
  const char* name;
  double ValidatedTable::*field;
};
const TableField kTableFields[] = {
    {"preset_median_abs_error_pct", &ValidatedTable::preset_median_abs_error_pct},
    {"in_sample_median_abs_error_pct", &ValidatedTable::in_sample_median_abs_error_pct},
    {"leave_table_out_median_abs_error_pct", &ValidatedTable::leave_table_out_median_abs_error_pct},
    {"leave_row_out_median_abs_error_pct", &ValidatedTable::leave_row_out_median_abs_error_pct},
    {"interval_coverage_pct", &ValidatedTable::interval_coverage_pct},
    {"median_interval_half_width_pct", &ValidatedTable::median_interval_half_width_pct},
};

json to_json(const ValidatedValue& v)
{
  return {{"table", v.table},
          {"label", v.label},
          {"metric", v.metric},
          {"paper", v.paper},
          {"preset", number_or_null(v.preset)},
          {to_string(Holdout::IN_SAMPLE), number_or_null(v.in_sample)},
          {to_string(Holdout::LEAVE_TABLE_OUT), number_or_null(v.leave_table_out)},
          {to_string(Holdout::LEAVE_ROW_OUT), number_or_null(v.leave_row_out)}};
}

json to_json(const ValidatedFit& f)
{
  json constants = json::array(), tables = json::array(), rows = json::array();
  for (const auto& c : f.constants)
    constants.push_back({{"pointer", c.pointer}, {"preset", c.preset}, {"refit", c.refit}});
  for (const auto& t : f.tables)
    tables.push_back(to_json(t));
  for (const auto& v : f.rows)
    rows.push_back(to_json(v));
  return {{"topology", f.topology}, {"source", f.source},  {"constants", constants},
          {"single_table", f.single_table}, {"tables", tables}, {"rows", rows}};
}

const json& array_field(const json& obj, const std::string& key, const std::string& where)
{
  const json& v = json_field(obj, key, where);
  if (!v.is_array())
    throw std::invalid_argument(where + key + ": not an array");
  return v;
}

ValidatedTable table_from_json(const json& t)
{
  const std::string w = "/fits/*/tables/*/";
  ValidatedTable out;
  out.table  = json_text(t, "table", w);
  out.values = json_integer<std::size_t>(t, "values", w);
  for (const auto& f : kTableFields)
    out.*f.field = json_number(t, f.name, w);
  return out;
}

ValidatedValue value_from_json(const json& v)
{
  const std::string w = "/fits/*/rows/*/";
  ValidatedValue out;
  out.table           = json_text(v, "table", w);
  out.label           = json_text(v, "label", w);
  out.metric          = json_text(v, "metric", w);
  out.paper           = json_number(v, "paper", w);
  out.preset          = json_number(v, "preset", w);
  out.in_sample       = json_number(v, to_string(Holdout::IN_SAMPLE), w);
  out.leave_table_out = json_number(v, to_string(Holdout::LEAVE_TABLE_OUT), w);
  out.leave_row_out   = json_number(v, to_string(Holdout::LEAVE_ROW_OUT), w);
  return out;
}

ValidatedFit fit_from_json(const json& f)
{
  const std::string w = "/fits/*/";
  ValidatedFit out;
  out.topology     = json_text(f, "topology", w);
  out.source       = json_text(f, "source", w);
  out.single_table = json_flag(f, "single_table", w);
  for (const auto& c : array_field(f, "constants", w))
    out.constants.push_back({json_text(c, "pointer", w + "constants/*/"), json_number(c, "preset", w + "constants/*/"),
                             json_number(c, "refit", w + "constants/*/")});
  for (const auto& t : array_field(f, "tables", w))
    out.tables.push_back(table_from_json(t));
  for (const auto& v : array_field(f, "rows", w))
    out.rows.push_back(value_from_json(v));
  return out;
}
} // namespace

json to_json(const ValidatedTable& t)
{
  json out = {{"table", t.table}, {"values", t.values}};
  for (const auto& f : kTableFields)
    out[f.name] = number_or_null(t.*f.field);
  return out;
}

json to_json(const ValidationResult& r)
{
  json fits = json::array();
  for (const auto& f : r.fits)
    fits.push_back(to_json(f));
  return {{"fits_file", r.fits_file},
          {"intervals",
           {{"values", r.interval_values},
            {"coverage_pct", number_or_null(r.interval_coverage_pct)},
            {"median_half_width_pct", number_or_null(r.median_interval_half_width_pct)}}},
          {"simulations", r.simulations},
          {"median_abs_error_pct",
           {{to_string(Holdout::LEAVE_ROW_OUT), number_or_null(r.median_abs_error_pct_leave_row_out)},
            {to_string(Holdout::LEAVE_TABLE_OUT), number_or_null(r.median_abs_error_pct_leave_table_out)},
            {to_string(Holdout::IN_SAMPLE), number_or_null(r.median_abs_error_pct_in_sample)}}},
          {"fits", fits}};
}

ValidationResult validation_from_json(const json& doc)
{
  ValidationResult r;
  r.fits_file                      = json_text(doc, "fits_file", "/");
  r.simulations                    = json_integer<std::size_t>(doc, "simulations", "/");
  const json& iv                   = json_field(doc, "intervals", "/");
  r.interval_values                = json_integer<std::size_t>(iv, "values", "/intervals/");
  r.interval_coverage_pct          = json_number(iv, "coverage_pct", "/intervals/");
  r.median_interval_half_width_pct = json_number(iv, "median_half_width_pct", "/intervals/");
  const json& med                  = json_field(doc, "median_abs_error_pct", "/");
  const std::string mw             = "/median_abs_error_pct/";
  r.median_abs_error_pct_leave_row_out   = json_number(med, to_string(Holdout::LEAVE_ROW_OUT), mw);
  r.median_abs_error_pct_leave_table_out = json_number(med, to_string(Holdout::LEAVE_TABLE_OUT), mw);
  r.median_abs_error_pct_in_sample       = json_number(med, to_string(Holdout::IN_SAMPLE), mw);
  for (const auto& f : array_field(doc, "fits", "/")) {
    r.fits.push_back(fit_from_json(f));
    r.values += r.fits.back().rows.size();
  }
  return r;
}

} // namespace ccsim::api
